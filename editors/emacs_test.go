//go:build unix

package editors_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/nvimtest"
)

// The Emacs package (editors/emacs/codewhale.el) in real Emacs 30, from
// the Debian sid root of the Neovim tests (.ci/setup-emacs.sh installs
// emacs-nox, elpa-package-lint and elpa-lsp-mode there): in batch,
// driven by a script of testdata/emacs that writes what it saw as JSON,
// and in tmux as a person types. The helpers are named emacs*; the
// approvals' tests reuse them.

// emacsSid is the Emacs of the sid root, run in a chroot.
func emacsSid(t *testing.T) neovim {
	t.Helper()
	return neovim{path: "/usr/bin/emacs", chroot: sidRoot(t, "Emacs", "/usr/bin/emacs", ".ci/setup-emacs.sh"), label: "emacs"}
}

// emacsWorld is a world (newEditorWorld) for Emacs: the package in
// plugin/, testdata/emacs in scripts/, and beside the home and ws of every
// world the files whose mode the tests check.
func emacsWorld(t *testing.T) *nvimWorld {
	t.Helper()
	w := newEditorWorld(t, emacsSid(t), "emacs", filepath.Join("testdata", "emacs"))
	ws := filepath.Join(w.dir, "ws")
	w.write(t, filepath.Join(ws, ".codewhale", "hooks.toml"), "# hooks\n")
	w.write(t, filepath.Join(ws, ".codewhale", "constitution.json"), "{}\n")
	w.write(t, filepath.Join(ws, "constitution.json"), "{}\n")
	w.write(t, filepath.Join(ws, "config.toml"), "# not Codewhale's\n")
	w.write(t, filepath.Join(ws, "sub", ".codewhale", "config.toml"), "# a nested workspace\n")
	w.write(t, filepath.Join(w.dir, "legacy", ".deepseek", "permissions.toml"), "# legacy\n")
	w.write(t, filepath.Join(w.dir, "foo.toml"), "a = 1\n")
	return w
}

// emacsArgs are the arguments of an Emacs without the user's init files
// that loads the world's scripts/script.
func emacsArgs(w *nvimWorld, script string) []string {
	return []string{"-Q", "-l", w.guest(filepath.Join(w.dir, "scripts", script))}
}

// emacsBatch runs scripts/script in Emacs in batch with CWLS_CASE=kind
// and decodes its results into out; an error the script recorded fails
// the test.
func emacsBatch(t *testing.T, w *nvimWorld, script, kind string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chroot", append([]string{w.nv.chroot, w.nv.path, "--batch"}, emacsArgs(w, script)...)...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, w.env(kind)...)
	cmd.WaitDelay = 5 * time.Second
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("emacs %s: %v\n%s", script, err, output)
	}
	if err := nvimtest.ReadResults(filepath.Join(w.dir, "results.json"), out); err != nil {
		t.Fatalf("%s: %v\noutput:\n%s", script, err, output)
	}
}

// emacsTmux starts Emacs in a terminal (tmux) on scripts/script and then
// files (as the editor sees them), as a person runs it, for tests that
// type into it.
func emacsTmux(t *testing.T, ctx context.Context, w *nvimWorld, script, kind string, cols, rows int, files ...string) *tmuxNeovim {
	t.Helper()
	args := append([]string{"-nw"}, emacsArgs(w, script)...)
	return startTmuxEditor(t, ctx, w, kind, cols, rows, append(args, files...)...)
}

func TestEmacsPackage(t *testing.T) {
	w := emacsWorld(t)
	start := time.Now()
	var res struct {
		ByteCompiled bool     `json:"byte_compiled"`
		Compile      []string `json:"compile"`
		Checkdoc     []string
		PackageLint  []string `json:"package_lint"`
		Version      string
		Header       string
		Recipe       struct {
			Name, Fetcher, Repo string
			Files               []string
			Rest                bool
		}
	}
	emacsBatch(t, w, "package.el", "package", &res)
	if !res.ByteCompiled || len(res.Compile) > 0 {
		t.Errorf("byte-compile with byte-compile-error-on-warn: compiled %v, said:\n%s", res.ByteCompiled, strings.Join(res.Compile, "\n"))
	}
	if len(res.Checkdoc) > 0 {
		t.Errorf("checkdoc:\n%s", strings.Join(res.Checkdoc, "\n"))
	}
	if len(res.PackageLint) > 0 {
		t.Errorf("package-lint:\n%s", strings.Join(res.PackageLint, "\n"))
	}
	if res.Version == "" || res.Version != res.Header {
		t.Errorf("codewhale-version %q, the header's Version: %q", res.Version, res.Header)
	}
	// The recipe names the package, the repository and the one file, which
	// is where the recipe says from the repository's root.
	r := res.Recipe
	if r.Name != "codewhale" || r.Fetcher != "github" || r.Repo != "codewhale-ls/codewhale-ls" || !slices.Equal(r.Files, []string{"editors/emacs/codewhale.el"}) || r.Rest {
		t.Errorf("editors/emacs/melpa-recipe reads as %+v", r)
	}
	for _, f := range r.Files {
		if _, err := os.Stat(filepath.Join("..", f)); err != nil {
			t.Errorf("the recipe's file: %v", err)
		}
	}
	t.Logf("byte-compile, checkdoc, package-lint: %v", time.Since(start).Round(time.Millisecond))
}

func TestEmacsEglot(t *testing.T) {
	w := emacsWorld(t)
	var res struct {
		Modes               map[string]string
		OpenToDiagnosticsMs float64 `json:"open_to_diagnostics_ms"`
		Diagnostics         []struct {
			Text, Type string
			Line, Col  int
			EndLine    int `json:"end_line"`
			EndCol     int `json:"end_col"`
		}
		Actions              []string
		FixTitle             string `json:"fix_title"`
		FixedText            string `json:"fixed_text"`
		Cleared              bool
		Hover                string
		CompletionCandidates []string `json:"completion_candidates"`
		CompletionLine       string   `json:"completion_line"`
		Servers              int
		FooServer            bool `json:"foo_server"`
		Status               []string
		Explain              []string
		Authorized           string
		Log                  []string
		LogHeader            string   `json:"log_header"`
		LogMode              string   `json:"log_mode"`
		LogRet               string   `json:"log_ret"`
		LogID                string   `json:"log_id"`
		LogShow              []string `json:"log_show"`
		Projects             struct{ WS, Home, Nested string }
		Allowed              string
		LogDeny              []string `json:"log_deny"`
		LogDenyAgain         []string `json:"log_deny_again"`
		FilterErrors         []string `json:"filter_errors"`
		FilterFlags          string   `json:"filter_flags"`
	}
	emacsBatch(t, w, "batch.el", "main", &res)
	for file, want := range map[string]string{
		"home_permissions": "codewhale-toml-mode", "ws_config": "codewhale-toml-mode", "ws_hooks": "codewhale-toml-mode",
		"legacy_permissions": "codewhale-toml-mode", "constitution": "codewhale-json-mode",
		// The user's mode for every other TOML file; Emacs's for JSON.
		"foo": "cw-user-toml-mode", "cargo": "cw-user-toml-mode", "plain_config": "cw-user-toml-mode", "plain_constitution": "js-json-mode",
	} {
		if res.Modes[file] != want {
			t.Errorf("%s opened in %q, want %q", file, res.Modes[file], want)
		}
	}
	// CW208 on the value "bash": line 3 (1-based), columns 7-13.
	found := 0
	for _, d := range res.Diagnostics {
		if strings.Contains(d.Text, "CW208") {
			found++
			if d.Line != 3 || d.Col != 7 || d.EndLine != 3 || d.EndCol != 13 || !strings.Contains(d.Text, "codewhale") {
				t.Errorf("CW208 at %+v, want line 3, columns 7-13, from codewhale", d)
			}
		}
	}
	if found != 1 {
		t.Errorf("CW208 shown %d times, want once: %+v", found, res.Diagnostics)
	}
	if !strings.Contains(res.FixedText, `tool = "exec_shell"`) || strings.Contains(res.FixedText, `"bash"`) {
		t.Errorf("the code action %q (of %q) left:\n%s", res.FixTitle, res.Actions, res.FixedText)
	}
	if !res.Cleared {
		t.Error("CW208 still shown after its fix was saved")
	}
	if strings.TrimSpace(res.Hover) == "" {
		t.Error("no hover on the key action")
	}
	if !slices.ContainsFunc(res.CompletionCandidates, func(c string) bool { return strings.Contains(c, "never") }) {
		t.Errorf("completion of approval_policy = \" offers %q", res.CompletionCandidates)
	}
	if res.CompletionLine != `approval_policy = "never"` {
		t.Errorf("completing never made the line %q", res.CompletionLine)
	}
	if res.Servers != 2 || res.FooServer {
		t.Errorf("%d servers for the two workspaces (the codewhale home, ws); foo.toml has one: %v", res.Servers, res.FooServer)
	}
	ws := w.guest(filepath.Join(w.dir, "ws"))
	if p := res.Projects; p.WS != "vc "+ws || p.Home != w.guest(filepath.Join(w.dir, "home", ".codewhale")) || p.Nested != "transient "+ws+"/sub" {
		t.Errorf("the servers' workspaces: %+v; want the git root (vc) %s, the Codewhale home, and %s/sub (transient)", p, ws, ws)
	}
	if status := strings.Join(res.Status, "\n"); !strings.Contains(status, "posture:") || !strings.Contains(status, "permissions.toml") ||
		!strings.Contains(status, "(this package 0.1.0)") || strings.Contains(status, `{"`) ||
		// approvals = "codewhale" with approvalsAsync, as the other editors declare.
		!strings.Contains(status, "approvals:   served here, as cards (codewhale/approvalRequested)") {
		t.Errorf("M-x codewhale-status:\n%s", status)
	}
	if explain := strings.Join(res.Explain, "\n"); !strings.Contains(explain, `read_file {"path":".env"}`) || !strings.Contains(explain, "=> deny at layer 9") ||
		!strings.Contains(explain, "1 posture") || !strings.Contains(explain, "9 sandbox") {
		t.Errorf("M-x codewhale-explain read_file .env:\n%s", explain)
	}
	if res.Authorized != "deny" {
		t.Errorf("codewhale/authorize read_file .env: %q", res.Authorized)
	}
	if log := strings.Join(res.Log, "\n"); res.LogMode != "codewhale-log-mode" || !strings.Contains(log, " deny ") || !strings.Contains(log, ".env") ||
		res.LogRet != "codewhale-log-show" || res.LogID == "" {
		t.Errorf("M-x codewhale-log (%s, RET %s, id %q):\n%s", res.LogMode, res.LogRet, res.LogID, log)
	}
	if res.Allowed != "allow" || !strings.Contains(strings.Join(res.Log, "\n"), " allow ") {
		t.Errorf("codewhale/authorize read_file notes.md: %q; the log:\n%s", res.Allowed, strings.Join(res.Log, "\n"))
	}
	for name, view := range map[string][]string{"decision=deny": res.LogDeny, "g after decision=deny": res.LogDenyAgain} {
		text := strings.Join(view, "\n")
		if len(view) < 2 || !strings.Contains(view[0], "filters: decision=deny") || !strings.Contains(text, " deny ") || strings.Contains(text, " allow ") {
			t.Errorf("M-x codewhale-log %s:\n%s", name, text)
		}
	}
	if e := res.FilterErrors; len(e) != 4 || !strings.Contains(e[0], "not a filter: nope=1 (filters: since= agent= decision= repo= tool= limit=") ||
		!strings.Contains(e[1], "limit= is a number of receipts, not x") || !strings.Contains(e[2], "agent= needs a value, e.g. agent=codex") ||
		!strings.Contains(e[3], "agent= needs a value") {
		t.Errorf("wrong filters said %q", e)
	}
	if res.FilterFlags != "agent=codex tool=exec_shell" && res.FilterFlags != "since=2h agent=codex tool=exec_shell" {
		t.Errorf("the command's own flags read as %q", res.FilterFlags)
	}
	if show := strings.Join(res.LogShow, "\n"); !strings.Contains(show, res.LogID) || !strings.Contains(show, ".env") {
		t.Errorf("RET in the log (log show %s):\n%s", res.LogID, show)
	}
	t.Logf("open permissions.toml -> diagnostics in Flymake %.0f ms", res.OpenToDiagnosticsMs)
}

func TestEmacsWithoutServer(t *testing.T) {
	w := emacsWorld(t)
	w.write(t, filepath.Join(w.dir, "bin", "slow"), "#!/bin/sh\nexec sleep 60\n")
	w.write(t, filepath.Join(w.dir, "bin", "endless"), "#!/bin/sh\nexec yes \"$(printf '%4000s' '' | tr ' ' x)\"\n")
	for _, name := range []string{"slow", "endless"} {
		if err := os.Chmod(filepath.Join(w.dir, "bin", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var res struct {
		LogSlow       []string `json:"log_slow"`
		LogEndless    []string `json:"log_endless"`
		ProcessesLeft int      `json:"processes_left"`
		LogMissing    []string `json:"log_missing"`
		ExplainInputs []string `json:"explain_inputs"`
		Relative      string
		NotOnPath     string `json:"not_on_path"`
	}
	emacsBatch(t, w, "batch.el", "missing", &res)
	if view := strings.Join(res.LogMissing, "\n"); !strings.Contains(view, "could not run: ") || !strings.Contains(view, "/not-there/codewhale-ls") ||
		!strings.Contains(view, "install codewhale-ls") {
		t.Errorf("M-x codewhale-log without codewhale-ls shows:\n%s", view)
	}
	if view := strings.Join(res.LogSlow, "\n"); !strings.Contains(view, "did not finish within 1 s and was stopped") {
		t.Errorf("M-x codewhale-log with a codewhale-ls that never finishes:\n%s", view)
	}
	if view := strings.Join(res.LogEndless, "\n"); !strings.Contains(view, "passed 16 MiB and was cut") {
		t.Errorf("M-x codewhale-log with a codewhale-ls that never stops printing:\n%.2000s", view)
	}
	if res.ProcessesLeft != 0 {
		t.Errorf("%d processes left running after the log's runs", res.ProcessesLeft)
	}
	want := []string{`{"command":"git push origin main"}`, `{"path":".env"}`, `{"pattern":"TODO","path":"src/lib"}`,
		`{"url":"https://example.com"}`, `{"command":"x y"}`, `{"path":"a","content":"b"}`, "Codewhale: not a JSON object: {not json"}
	if !slices.Equal(res.ExplainInputs, want) {
		t.Errorf("codewhale-explain's inputs:\n got %q\nwant %q", res.ExplainInputs, want)
	}
	if !strings.Contains(res.Relative, "relative to the workspace") {
		t.Errorf("a relative codewhale-program: %q", res.Relative)
	}
	if !strings.Contains(res.NotOnPath, "not found on `exec-path'") {
		t.Errorf("a program not on exec-path: %q", res.NotOnPath)
	}
}

// lsp-mode's users (Debian's elpa-lsp-mode in the sid root): the
// package registers codewhale-ls when lsp-mode loads, and its findings
// reach lsp-mode and Flymake.
func TestEmacsLspMode(t *testing.T) {
	w := emacsWorld(t)
	var res struct {
		Registered          bool
		Mode                string
		ServerID            string  `json:"server_id"`
		OpenToDiagnosticsMs float64 `json:"open_to_diagnostics_ms"`
		Flymake             []string
		Status              []string
	}
	emacsBatch(t, w, "batch.el", "lsp-mode", &res)
	if !res.Registered || res.ServerID != "codewhale-ls" || res.Mode != "codewhale-toml-mode" {
		t.Errorf("lsp-mode: registered %v, server %q, mode %q", res.Registered, res.ServerID, res.Mode)
	}
	if !slices.ContainsFunc(res.Flymake, func(d string) bool { return strings.Contains(d, `never evaluates the tool "bash"`) }) {
		t.Errorf("Flymake under lsp-mode shows %q, not CW208", res.Flymake)
	}
	if status := strings.Join(res.Status, "\n"); !strings.Contains(status, "posture:     ask") || !strings.Contains(status, "permissions.toml") {
		t.Errorf("M-x codewhale-status through lsp-mode:\n%s", status)
	}
	t.Logf("lsp-mode: open permissions.toml -> diagnostics %.0f ms", res.OpenToDiagnosticsMs)
}

// A person in Emacs in a terminal opens their broken permissions.toml,
// sees codewhale-ls's finding at its line, and applies its fix with keys:
// C-s to the value, M-x eglot-code-actions, RET on the offered fix, C-x
// C-s.
func TestEmacsTyping(t *testing.T) {
	w := emacsWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	// After the tmux server's end (cleanups run last first), which needs ctx.
	t.Cleanup(cancel)
	perm := filepath.Join(w.dir, "home", ".codewhale", "permissions.toml")
	start := time.Now()
	tm := emacsTmux(t, ctx, w, "user.el", "typing", 120, 36, w.guest(perm))
	// Flymake counts the findings in the mode line once the server
	// published them.
	tm.waitScreen(`tool = "bash"`, "Codewhale-TOML", "Flymake[0 2]", "[eglot:.codewhale]")
	t.Logf("open permissions.toml -> findings on the screen %v", time.Since(start).Round(time.Millisecond))
	tm.typeText("\x1bxflymake-show-buffer-diagnostics\n")
	screen := tm.waitScreen("CW208", "never evaluates the tool")
	if !regexp.MustCompile(`(?m)^\s*3\s+7\s+.*warning.*CW208`).MatchString(screen) {
		t.Errorf("the list of findings does not put CW208 at line 3, column 7:\n%s", screen)
	}
	// Point on "bash": its finding in the echo area (ElDoc).
	tm.typeText("\x13bash\n")
	tm.waitScreen("codewhale [CW208]")
	tm.typeText("\x1bxeglot-code-actions\n")
	tm.waitScreen(`Pick an action (default Change to "exec_shell")`)
	tm.typeText("\n")
	tm.waitScreen(`tool = "exec_shell"`)
	tm.typeText("\x18\x13")
	tm.waitScreen("Wrote ")
	disk, err := os.ReadFile(perm)
	if err != nil || !strings.Contains(string(disk), `tool = "exec_shell"`) || strings.Contains(string(disk), `"bash"`) {
		t.Errorf("permissions.toml on disk after the fix and C-x C-s: %q, %v", disk, err)
	}
	// The finding is gone from the list once the fix is in.
	give := time.Now().Add(time.Minute)
	for strings.Contains(tm.capture(false), "CW208") {
		if time.Now().After(give) {
			t.Fatalf("CW208 still shown after its fix:\n%s", tm.capture(false))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Installed as the README says, with package-vc-install and with
// use-package's :vc (from a local clone of the repository's layout, as
// they would clone the forge's): a
// policy file then opens in its mode and starts codewhale-ls without a
// require.
func TestEmacsPackageVC(t *testing.T) {
	w := emacsWorld(t)
	git := requireTool(t, "git", "apt-get install git")
	repo := filepath.Join(w.dir, "repo")
	copyFile(t, filepath.Join("emacs", "codewhale.el"), filepath.Join(repo, "editors", "emacs", "codewhale.el"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "the package"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	for _, how := range []string{"package-vc-install", "use-package"} {
		t.Run(how, func(t *testing.T) {
			os.RemoveAll(filepath.Join(w.dir, "elpa"))
			var res struct {
				Installed, Server bool
				LoadedBefore      bool `json:"loaded_before_visit"`
				Mode, Foo         string
			}
			emacsBatch(t, w, "vc.el", how, &res)
			// use-package loads what it installs (no :defer); the
			// autoloads alone must do for package-vc-install.
			if !res.Installed || (how == "package-vc-install" && res.LoadedBefore) || res.Mode != "codewhale-toml-mode" || !res.Server || res.Foo == "codewhale-toml-mode" {
				t.Errorf("%s: installed %v, loaded before a visit %v; permissions.toml in %q, its server %v; foo.toml in %q",
					how, res.Installed, res.LoadedBefore, res.Mode, res.Server, res.Foo)
			}
		})
	}
}
