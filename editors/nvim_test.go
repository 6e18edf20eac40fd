//go:build unix

package editors_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/nvimtest"
)

// The Neovim plugin (editors/nvim) in real Neovims at both ends of the
// range it supports: Debian's (0.7.2, on PATH) and the newest Debian has
// (sid, 0.12.x, in a chroot made by .ci/setup-nvim.sh). Each run is
// headless, driven by a Lua script of testdata/nvim that types into the
// plugin's prompt as a user would and writes what it saw as JSON.

const defaultSidRoot = "/opt/codewhale-e2e/sid"

// neovim is one Neovim to run: on this machine, or inside a chroot.
type neovim struct {
	path   string // as the editor sees it
	chroot string // "" on this machine
	label  string // which Neovim, in subtests' and screenshots' names
}

// skipOrFail skips, or fails under CODEWHALE_E2E=1.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if e2eRequired() {
		t.Fatalf("CODEWHALE_E2E=1 but "+format, args...)
	}
	t.Skipf(format+"; set CODEWHALE_E2E=1 to make that a failure", args...)
}

// eachNeovim runs body once per Neovim the plugin is tested in (Debian's
// 0.7 and sid's newest), as subtests named after each.
func eachNeovim(t *testing.T, body func(t *testing.T, nv neovim)) {
	for _, editor := range []struct {
		name string
		find func(*testing.T) neovim
	}{
		{"debian 0.7", hostNeovim},
		{"sid 0.12", sidNeovim},
	} {
		t.Run(editor.name, func(t *testing.T) {
			nv := editor.find(t)
			nv.label = strings.ReplaceAll(editor.name, " ", "-")
			body(t, nv)
		})
	}
}

func hostNeovim(t *testing.T) neovim {
	return neovim{path: requireTool(t, "nvim", "apt-get install neovim, or .ci/setup-nvim.sh")}
}

func sidNeovim(t *testing.T) neovim {
	return neovim{path: "/usr/bin/nvim", chroot: sidRoot(t, "Neovim", "/usr/bin/nvim", ".ci/setup-nvim.sh")}
}

// sidRoot is the Debian sid root holding the editor named what at path
// (as the editor sees it), to run in a chroot; it skips, or fails under
// CODEWHALE_E2E=1, when there is none (setup makes one) or this test
// cannot chroot.
func sidRoot(t *testing.T, what, path, setup string) string {
	t.Helper()
	root := os.Getenv("CODEWHALE_NVIM_SID_ROOT")
	if root == "" {
		root = defaultSidRoot
	}
	// Lstat: the editor is often a symbolic link to /etc/alternatives,
	// which resolves only inside the root.
	if _, err := os.Lstat(filepath.Join(root, path)); err != nil {
		skipOrFail(t, "no Debian sid root with %s at %s (%s makes one; CODEWHALE_NVIM_SID_ROOT names another)", what, root, setup)
	}
	requireTool(t, "chroot", "coreutils")
	if os.Geteuid() != 0 {
		skipOrFail(t, "running %s in the chroot %s needs root", what, root)
	}
	return root
}

// nvimWorld is one run's directory (inside the chroot when there is
// one): the server, a copy of the plugin and the scripts, HOME and a
// workspace. The Emacs tests (emacs_test.go) run in one too, nv then
// naming Emacs.
type nvimWorld struct {
	nv  neovim
	dir string
}

func newNvimWorld(t *testing.T, nv neovim) *nvimWorld {
	t.Helper()
	w := newEditorWorld(t, nv, "nvim", filepath.Join("testdata", "nvim"))
	nvimtest.WriteResultsLib(t, filepath.Join(w.dir, "scripts"))
	return w
}

// newEditorWorld makes a world for the editor nv: the server in bin/,
// the plugin's folder plugin copied to plugin/, the scripts' folder
// scripts to scripts/, the Codewhale home with a broken permissions.toml
// and a workspace ws.
func newEditorWorld(t *testing.T, nv neovim, plugin, scripts string) *nvimWorld {
	t.Helper()
	var dir string
	if nv.chroot == "" {
		dir = t.TempDir()
	} else {
		tmp := filepath.Join(nv.chroot, "tmp")
		if err := os.MkdirAll(tmp, 0o1777); err != nil {
			t.Fatal(err)
		}
		d, err := os.MkdirTemp(tmp, "codewhale-"+plugin+"-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		dir = d
	}
	w := &nvimWorld{nv: nv, dir: dir}
	copyFile(t, serverBinary(t), filepath.Join(dir, "bin", "codewhale-ls"), 0o755)
	copyTree(t, plugin, filepath.Join(dir, "plugin"))
	copyTree(t, scripts, filepath.Join(dir, "scripts"))
	home := filepath.Join(dir, "home", ".codewhale")
	// Managed config and requirements outside /etc keep the load hermetic.
	w.write(t, filepath.Join(home, "config.toml"),
		"managed_config_path = \""+w.guest(filepath.Join(dir, "managed.toml"))+"\"\n"+
			"requirements_path = \""+w.guest(filepath.Join(dir, "requirements.toml"))+"\"\n")
	w.write(t, filepath.Join(home, "permissions.toml"), brokenPermissions)
	w.write(t, filepath.Join(dir, "ws", ".git", "HEAD"), "ref: refs/heads/main\n")
	w.write(t, filepath.Join(dir, "ws", ".codewhale", "config.toml"), "# project overlay\n")
	w.write(t, filepath.Join(dir, "ws", "Cargo.toml"), "[package]\nname = \"demo\"\n")
	return w
}

// brokenPermissions has a rule for "bash", which the rule layer never
// evaluates (CW208, quick fix to exec_shell).
const brokenPermissions = "# my rules\n[[rules]]\ntool = \"bash\"\ncommand = \"rm\"\naction = \"deny\"\n"

// guest is path as the editor sees it.
func (w *nvimWorld) guest(path string) string {
	if w.nv.chroot == "" {
		return path
	}
	return "/" + strings.TrimPrefix(strings.TrimPrefix(path, w.nv.chroot), "/")
}

func (w *nvimWorld) write(t *testing.T, path, text string) {
	t.Helper()
	nvimtest.Write(t, path, []byte(text), 0o600)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	nvimtest.Write(t, to, b, mode)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		copyFile(t, path, filepath.Join(to, rel), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// run runs scripts/<script> with CWLS_CASE=kind and decodes its results
// into out; an error the script recorded fails the test.
func (w *nvimWorld) run(t *testing.T, script, kind string, out any) {
	t.Helper()
	w.runArgs(t, []string{"--headless", "--clean", "-c", "luafile " + w.guest(filepath.Join(w.dir, "scripts", script))}, script, kind, nil, out)
}

// runArgs runs Neovim with args (which name scripts/<script>) and extra
// environment variables, as run does.
func (w *nvimWorld) runArgs(t *testing.T, args []string, script, kind string, extraEnv []string, out any) {
	t.Helper()
	env := append(append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, w.env(kind)...), extraEnv...)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	if w.nv.chroot == "" {
		cmd = exec.CommandContext(ctx, w.nv.path, args...)
		cmd.Dir = w.dir
	} else {
		cmd = exec.CommandContext(ctx, "chroot", append([]string{w.nv.chroot, w.nv.path}, args...)...)
	}
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim %s: %v\n%s\nlsp.log:\n%s", script, err, output, w.lspLog())
	}
	if err := nvimtest.ReadResults(filepath.Join(w.dir, "results.json"), out); err != nil {
		t.Fatalf("%s: %v\noutput:\n%s\nlsp.log:\n%s", script, err, output, w.lspLog())
	}
}

// env is the editor's environment: HOME, CODEWHALE_HOME and XDG_* in
// the world, and what the scripts read (CWLS_*), as the editor sees it.
func (w *nvimWorld) env(kind string) []string {
	g := w.guest
	home := filepath.Join(w.dir, "home")
	return []string{"HOME=" + g(home), "XDG_RUNTIME_DIR=" + g(home), "CODEWHALE_HOME=" + g(filepath.Join(home, ".codewhale")),
		"XDG_CACHE_HOME=" + g(filepath.Join(w.dir, "cache")), "XDG_CONFIG_HOME=" + g(filepath.Join(w.dir, "config")),
		"XDG_DATA_HOME=" + g(filepath.Join(w.dir, "data")), "XDG_STATE_HOME=" + g(filepath.Join(w.dir, "state")),
		"CWLS_BIN=" + g(filepath.Join(w.dir, "bin", "codewhale-ls")), "CWLS_PLUGIN=" + g(filepath.Join(w.dir, "plugin")),
		"CWLS_LIB=" + g(filepath.Join(w.dir, "scripts", "lib.lua")), "CWLS_RESULTS=" + g(filepath.Join(w.dir, "scripts", "results.lua")), "CWLS_DIR=" + g(w.dir),
		"CWLS_OUT=" + g(filepath.Join(w.dir, "results.json")), "CWLS_CASE=" + kind}
}

func (w *nvimWorld) lspLog() string {
	for _, p := range []string{filepath.Join(w.dir, "cache", "nvim", "lsp.log"), filepath.Join(w.dir, "state", "nvim", "lsp.log")} {
		if b, err := os.ReadFile(p); err == nil {
			if len(b) > 20000 {
				b = b[len(b)-20000:]
			}
			return string(b)
		}
	}
	return ""
}

// logViewSeen is the decision log's view (logview.lua) as a script saw it.
type logViewSeen struct {
	Name  string
	Lines []string
}

// rows are the view's receipts, the lines under its header.
func (v logViewSeen) rows() []string {
	for i, l := range v.Lines {
		if strings.HasPrefix(l, "TIME ") {
			return v.Lines[i+1:]
		}
	}
	return nil
}

type promptSeen struct {
	Ms         float64
	Choices    []string
	Lines      []string
	Statusline string
	Picker     string
	Mode       string
	SameBuffer bool `json:"same_buffer"`
	Focused    bool
	Typed      []string
	Picked     struct {
		Items  []string
		Prompt string
		Kind   string
	}
	Result struct {
		Decision, Reason, Choice string
		Layer                    int
	}
}

func TestNeovimPlugin(t *testing.T) {
	for _, editor := range []struct {
		name string
		find func(*testing.T) neovim
		// what feature detection must choose there
		start, waits string
	}{
		{"debian 0.7", hostNeovim, "vim.lsp.start_client", "asynchronous"},
		{"sid 0.12", sidNeovim, "vim.lsp.config", "asynchronous"},
	} {
		t.Run(editor.name, func(t *testing.T) {
			nv := editor.find(t)
			t.Run("files approvals commands", func(t *testing.T) {
				w := newNvimWorld(t, nv)
				var res struct {
					Help                string
					OpenToDiagnosticsMs float64 `json:"open_to_diagnostics_ms"`
					Diagnostics         []struct {
						Code      string
						Lnum, Col int
						EndLnum   int `json:"end_lnum"`
						EndCol    int `json:"end_col"`
						Source    string
					}
					FixTitle       string   `json:"fix_title"`
					FixedLines     []string `json:"fixed_lines"`
					OtherTOML      int      `json:"other_toml_clients"`
					Clients        int
					Answers        map[string]promptSeen
					ReloadedLines  []string `json:"reloaded_lines"`
					ModifiedReload bool     `json:"permissions_modified_after_reload"`
					UnsavedLines   []string `json:"unsaved_lines"`
					Queued         struct {
						Statusline string
						Lines      []string
						Floats     int
					}
					ApprovalMode string `json:"approval_mode"`
					Features     string
					Explain      []string
					Status       []string
					Log          logViewSeen
					Health       []string
					Namespaces   int `json:"permissions_namespaces"`
					NoServer     struct {
						Decision, Reason string
						Layer            int
					} `json:"no_server"`
					HelpTop     struct{ Name, Line string } `json:"help_top"`
					OtherServer bool                        `json:"other_server_diagnostics"`
					Completion  struct {
						Omnifunc, Line string
						Start          int
						Lines          []string
					}
					ExplainEnv    []string    `json:"explain_env"`
					SubExplainEnv []string    `json:"sub_explain_env"`
					SubStatus     []string    `json:"sub_status"`
					StatusRender  []string    `json:"status_render"`
					SubLog        logViewSeen `json:"sub_log"`
					SubComplete   struct {
						Subs, St, Tools, Second, Status, Old, Commands []string
					} `json:"sub_complete"`
					SubWrong []string `json:"sub_wrong"`
					Escaped  struct {
						Visible string
						Lines   []string
					}
					HookPromptLines []string `json:"hook_prompt_lines"`
					HookStatusline  string   `json:"hook_statusline"`
				}
				w.run(t, "plugin.lua", "main", &res)
				if lines := strings.Join(res.HookPromptLines, "\n"); !strings.Contains(lines, "(asked by codex)") || !strings.Contains(lines, "Rules of Codewhale 0.10.1") {
					t.Errorf("another agent's prompt does not name the agent and the release:\n%s", lines)
				}
				if want := "a⟪RLO U+202E⟫b⟪TAB⟫c⟪ZWSP U+200B⟫d⟪NBSP U+00A0⟫e⟪0xFF⟫"; res.Escaped.Visible != want {
					t.Errorf("the plugin's own escaping: %q, want %q", res.Escaped.Visible, want)
				}
				if lines := strings.Join(res.Escaped.Lines, "\n"); !strings.Contains(lines, "command (2 lines, 2 invisible") ||
					!strings.Contains(lines, "  ls ⟪RLI U+2067⟫x⟪PDI U+2069⟫\n  rm -rf /") {
					t.Errorf("a raw input's card text:\n%s", lines)
				}
				if res.HookStatusline != "CW: 1 approval waiting (codex)" {
					t.Errorf("statusline with another agent's call waiting: %q", res.HookStatusline)
				}
				if res.NoServer.Decision != "deny" || res.NoServer.Layer != 0 || !strings.Contains(res.NoServer.Reason, "not running") ||
					strings.Contains(res.NoServer.Reason, ":Codewhale") {
					t.Errorf("a call with no server (its reason must name no command that does not exist): %+v", res.NoServer)
				}
				if !strings.HasSuffix(res.HelpTop.Name, "codewhale.txt") || !strings.Contains(res.HelpTop.Line, "*codewhale*") {
					t.Errorf(":help codewhale opened %+v, want the top of codewhale.txt", res.HelpTop)
				}
				if res.OtherServer {
					t.Error("the workspace's server's diagnostics of the home's permissions.toml were shown beside the home server's")
				}
				// 0.7's own omnifunc made `""never"`; the plugin's inserts
				// the textEdit over its range.
				if !slices.Contains(res.Completion.Lines, `approval_policy = "never"`) || slices.ContainsFunc(res.Completion.Lines, func(l string) bool { return strings.Contains(l, `""`) }) {
					t.Errorf("completion of approval_policy = \" gives %+v", res.Completion)
				}
				if editor.start == "vim.lsp.start_client" && res.Completion.Omnifunc != "v:lua.require'codewhale'.omnifunc" {
					t.Errorf("0.7: omnifunc on attach is %q", res.Completion.Omnifunc)
				}
				if env := strings.Join(res.ExplainEnv, "\n"); !strings.Contains(env, `read_file {"path": ".env"}`) || !strings.Contains(env, "=> deny at layer 9") {
					t.Errorf(":CodewhaleExplain read_file .env:\n%s", env)
				}
				// :Codewhale {subcommand}, the old commands' aliases' target.
				if env := strings.Join(res.SubExplainEnv, "\n"); !strings.Contains(env, `read_file {"path": ".env"}`) || !strings.Contains(env, "=> deny at layer 9") {
					t.Errorf(":Codewhale explain read_file .env:\n%s", env)
				}
				if status := strings.Join(res.SubStatus, "\n"); !strings.Contains(status, "posture:") || !strings.Contains(status, "decides as 0.10.1") {
					t.Errorf(":Codewhale status:\n%s", status)
				}
				// Issue 24, point 12: no empty release, no overlay inside
				// the Codewhale home, the sandbox in words.
				for name, lines := range map[string][]string{":CodewhaleStatus": res.Status, ":Codewhale status": res.SubStatus} {
					status := strings.Join(lines, "\n")
					if strings.Contains(status, ".codewhale/.codewhale/") || strings.Contains(status, "codewhale:    (") ||
						strings.Contains(status, `{"`) || !strings.Contains(status, "(this plugin 0.1.0)") {
						t.Errorf("%s:\n%s", name, status)
					}
				}
				if render := strings.Join(res.StatusRender, "\n"); !strings.Contains(render, "\nsandbox:     workspace-write; writable: /w, /tmp; network off\n") ||
					!strings.Contains(render, "\ncodewhale:   none found (decides as 0.10.1; default: no codewhale on PATH)\n") {
					t.Errorf("status_lines:\n%s", render)
				}
				// decision=deny: only the denies.
				if rows := res.SubLog.rows(); res.SubLog.Name != "codewhale://log" || len(rows) < 2 ||
					!strings.Contains(res.SubLog.Lines[0], "filters: decision=deny") || slices.ContainsFunc(rows, func(r string) bool { return !strings.Contains(r, " deny ") }) {
					t.Errorf(":Codewhale log decision=deny shows %q", res.SubLog.Lines)
				}
				c := res.SubComplete
				if !slices.Equal(c.Subs, []string{"explain", "log", "status"}) || !slices.Equal(c.St, []string{"status"}) ||
					!slices.Equal(c.Tools, []string{"read", "read_file", "read_media"}) || len(c.Second) != 0 || len(c.Status) != 0 ||
					!slices.Equal(c.Old, c.Tools) {
					t.Errorf(":Codewhale completion: %+v", c)
				}
				for _, name := range []string{"Codewhale", "CodewhaleExplain", "CodewhaleLog", "CodewhaleStatus"} {
					if !slices.Contains(c.Commands, name) {
						t.Errorf("no :%s among %q", name, c.Commands)
					}
				}
				if w := res.SubWrong; len(w) != 3 || !strings.Contains(w[0], "a subcommand is needed: :Codewhale {explain|log|status}") ||
					!strings.Contains(w[1], "no subcommand nope") || !strings.Contains(w[2], "usage: :Codewhale explain {tool} {argument}") {
					t.Errorf(":Codewhale without a subcommand, with a wrong one, explain without its argument said %q", w)
				}
				if !strings.HasSuffix(res.Help, "codewhale.txt") {
					t.Errorf(":help codewhale-approvals opened %q", res.Help)
				}
				// CW208 on the value "bash" (line 2, columns 7-13).
				found := 0
				for _, d := range res.Diagnostics {
					if d.Code == "CW208" {
						found++
						if d.Lnum != 2 || d.Col != 7 || d.EndLnum != 2 || d.EndCol != 13 || d.Source != "codewhale" {
							t.Errorf("CW208 at %+v, want line 2, columns 7-13, source codewhale", d)
						}
					}
				}
				if found != 1 {
					t.Errorf("CW208 shown %d times, want once: %+v", found, res.Diagnostics)
				}
				if !strings.Contains(strings.Join(res.FixedLines, "\n"), `tool = "exec_shell"`) {
					t.Errorf("quick fix %q left %q", res.FixTitle, res.FixedLines)
				}
				if res.Namespaces != 1 {
					t.Errorf("permissions.toml's findings came in %d namespaces: each shown as many times", res.Namespaces)
				}
				if res.Clients != 2 {
					t.Errorf("%d clients for the two workspaces (the codewhale home, ws)", res.Clients)
				}
				if res.OtherTOML != 0 {
					t.Errorf("%d clients attached to Cargo.toml", res.OtherTOML)
				}
				want := map[string]struct{ decision, choice string }{
					"once": {"allow", "once"}, "deny": {"deny", "deny"}, "esc": {"deny", "dismissed"},
					"always": {"allow", "always"}, "always_unsaved": {"allow", "always"}, "session": {"allow", "session"},
				}
				for name, wa := range want {
					got, ok := res.Answers[name]
					if !ok {
						t.Errorf("no answer %q", name)
						continue
					}
					if got.Result.Decision != wa.decision || got.Result.Choice != wa.choice {
						t.Errorf("%s: decision %+v, want %s with approval %s", name, got.Result, wa.decision, wa.choice)
					}
				}
				for _, name := range []string{"once", "deny", "esc", "always"} {
					p := res.Answers[name]
					if len(p.Choices) == 0 || p.Choices[0] != "deny" {
						t.Errorf("%s: choices %q, Deny not first", name, p.Choices)
					}
					text := strings.Join(p.Lines, "\n")
					for _, s := range []string{"cargo", "Reason:", "left (until", "[[rules]]", "d          Deny", "Approve once", "type "} {
						if !strings.Contains(text, s) {
							t.Errorf("%s: the prompt lacks %q:\n%s", name, s, text)
						}
					}
					if p.Statusline != "CW: 1 approval waiting" {
						t.Errorf("%s: statusline %q", name, p.Statusline)
					}
					t.Logf("%s: authorize -> visible prompt %.0f ms", name, p.Ms)
				}
				// A prompt over insert mode: the typing goes on into the
				// buffer, the card takes the keys only after <Esc>.
				fromInsert := res.Answers["from_insert"]
				if fromInsert.Result.Choice != "deny" || fromInsert.Mode != "i" || !fromInsert.SameBuffer || fromInsert.Focused ||
					strings.Join(fromInsert.Typed, "\n") != "let obj = 1;\nyield" {
					t.Errorf("a prompt over insert mode: %+v", fromInsert)
				}
				session := res.Answers["session"]
				if session.Picker != "plugin, then the code" || len(session.Picked.Items) == 0 || session.Picked.Items[0] != "deny" ||
					!strings.HasPrefix(session.Picked.Prompt, "Codewhale approval: bash") || !strings.Contains(session.Picked.Prompt, "cargo doc") || strings.Contains(session.Picked.Prompt, "\n") ||
					session.Picked.Kind != "codewhale.approval" {
					t.Errorf("a picker plugin's vim.ui.select got %+v", session)
				}
				if !strings.Contains(strings.Join(res.ReloadedLines, "\n"), "cargo fmt") || res.ModifiedReload {
					t.Errorf("after always, permissions.toml buffer %q (modified %v)", res.ReloadedLines, res.ModifiedReload)
				}
				unsaved := strings.Join(res.UnsavedLines, "\n")
				if !strings.Contains(unsaved, "# unsaved") || strings.Contains(unsaved, "cargo clippy") {
					t.Errorf("a modified permissions.toml buffer was reloaded: %q", res.UnsavedLines)
				}
				disk, err := os.ReadFile(filepath.Join(w.dir, "home", ".codewhale", "permissions.toml"))
				if err != nil || !strings.Contains(string(disk), "cargo clippy") || !strings.Contains(string(disk), `tool = "exec_shell"`) {
					t.Errorf("permissions.toml on disk: %q, %v", disk, err)
				}
				// One card on the screen: its text and its footer.
				if res.Queued.Statusline != "CW: 2 approvals waiting" || res.Queued.Floats != 2 ||
					!strings.Contains(strings.Join(res.Queued.Lines, "\n"), "1 more waiting") {
					t.Errorf("two prompts at once: %+v", res.Queued)
				}
				explain := strings.Join(res.Explain, "\n")
				for _, s := range []string{"1 posture", "5 permissions", "8 approval", "9 sandbox", "=>"} {
					if !strings.Contains(explain, s) {
						t.Errorf(":CodewhaleExplain lacks %q:\n%s", s, explain)
					}
				}
				if status := strings.Join(res.Status, "\n"); !strings.Contains(status, "posture:") || !strings.Contains(status, "permissions.toml") ||
					!strings.Contains(status, "decides as 0.10.1") {
					t.Errorf(":CodewhaleStatus:\n%s", status)
				}
				// Every decision of the script, a receipt per line.
				if rows := res.Log.rows(); res.Log.Name != "codewhale://log" || len(rows) < 6 ||
					!slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, " allow ") }) {
					t.Errorf(":CodewhaleLog shows %q", res.Log.Lines)
				}
				health := strings.Join(res.Health, "\n")
				for _, s := range []string{"codewhale-ls binary", "client started with " + editor.start, "permissions.toml: loaded", "approval prompts: "} {
					if !strings.Contains(health, s) {
						t.Errorf(":checkhealth codewhale lacks %q:\n%s", s, health)
					}
				}
				if strings.Contains(health, ".codewhale/.codewhale/") {
					t.Errorf(":checkhealth codewhale lists the home's own overlay:\n%s", health)
				}
				if strings.Contains(health, "ERROR") {
					t.Errorf(":checkhealth codewhale reports an error:\n%s", health)
				}
				if res.Features != editor.start || !strings.Contains(res.ApprovalMode, editor.waits) {
					t.Errorf("feature detection chose %q, prompts %q; want %q, %q", res.Features, res.ApprovalMode, editor.start, editor.waits)
				}
				t.Logf("open permissions.toml -> diagnostics %.0f ms", res.OpenToDiagnosticsMs)
			})
			deadline := func(t *testing.T, kind, start string) {
				w := newNvimWorld(t, nv)
				var res struct {
					Features        string
					Prompt          promptSeen
					FloatsOpen      int `json:"floats_open"`
					Decision        struct{ Decision, Choice string }
					FloatsAfter     int    `json:"floats_after"`
					QueueAfter      int    `json:"queue_after"`
					StatuslineAfter string `json:"statusline_after"`
					PendingWaiting  int    `json:"pending_while_waiting"`
					Codewhale       struct{ Behaviour, Source string }
					Hardening       *bool
					Stopped         struct {
						Decision, Reason string
						Layer            int
					}
					FloatsAfterStop int `json:"floats_after_stop"`
					Notified        []string
					Alerts          int
					Focus           struct {
						Lost struct {
							State, Global bool
						}
						Gained bool
					}
					PluginPicker  struct{ Decision, Choice string } `json:"plugin_picker"`
					UserFloatKept bool                              `json:"user_float_kept"`
				}
				w.run(t, "plugin.lua", kind, &res)
				if res.Features != start {
					t.Errorf("the client started with %q, want %q", res.Features, start)
				}
				if res.FloatsOpen != 2 {
					t.Errorf("%d floats while the prompt waited", res.FloatsOpen)
				}
				if res.Decision.Decision != "deny" || res.Decision.Choice != "timeout" {
					t.Errorf("decision %+v, want deny by timeout", res.Decision)
				}
				if len(res.Notified) != 1 || !strings.Contains(res.Notified[0], "approval is waiting") || res.Alerts != 1 {
					t.Errorf("Neovim not focused, a prompt announced %q, %d bells", res.Notified, res.Alerts)
				}
				if res.Focus.Lost.State || res.Focus.Lost.Global || !res.Focus.Gained {
					t.Errorf("the focus after FocusLost, FocusGained: %+v (want false, not in vim.g, true)", res.Focus)
				}
				if res.PluginPicker.Decision != "deny" || res.PluginPicker.Choice != "timeout" {
					t.Errorf("a picker plugin's prompt past its deadline: %+v", res.PluginPicker)
				}
				if !res.UserFloatKept {
					t.Error("withdrawing a picker plugin's prompt closed a float the user opened meanwhile")
				}
				if res.Codewhale.Behaviour != "0.10.1" || res.Codewhale.Source != "initializationOptions.codewhaleVersion" {
					t.Errorf("setup{codewhale_version = '0.10.1'}: the server decides as %+v", res.Codewhale)
				}
				if res.Hardening == nil || *res.Hardening {
					t.Errorf("setup{hardening = false}: codewhale/status says hardening %v", res.Hardening)
				}
				if res.PendingWaiting != 1 {
					t.Errorf("codewhale/status while a prompt waited: %d pending", res.PendingWaiting)
				}
				if res.Stopped.Decision != "deny" || res.FloatsAfterStop != 0 {
					t.Errorf("the server stopped while a prompt waited: %+v, %d floats left", res.Stopped, res.FloatsAfterStop)
				}
				if res.FloatsAfter != 0 || res.QueueAfter != 0 || res.StatuslineAfter != "" {
					t.Errorf("after the deadline: %d floats, %d queued, statusline %q", res.FloatsAfter, res.QueueAfter, res.StatuslineAfter)
				}
			}
			t.Run("a prompt past its deadline", func(t *testing.T) { deadline(t, "timeout", editor.start) })
			t.Run("no codewhale-ls", func(t *testing.T) {
				w := newNvimWorld(t, nv)
				var res struct {
					Notified   []string
					Clients    int
					LogMissing []string `json:"log_missing"`
				}
				w.run(t, "plugin.lua", "nobinary", &res)
				if len(res.Notified) == 0 || !strings.Contains(res.Notified[0], "not found") || res.Clients != 0 {
					t.Errorf("opening a policy file without codewhale-ls: told %q, %d clients", res.Notified, res.Clients)
				}
				if view := strings.Join(res.LogMissing, "\n"); !strings.Contains(view, "could not run: ") || !strings.Contains(view, "not-there") ||
					!strings.Contains(view, "What to do: install codewhale-ls") {
					t.Errorf(":Codewhale log without codewhale-ls shows:\n%s", view)
				}
			})
			if editor.start == "vim.lsp.config" {
				t.Run("a prompt past its deadline in a client started as 0.8-0.10 do", func(t *testing.T) {
					deadline(t, "timeout-start", "vim.lsp.start")
				})
			}
		})
	}
}
