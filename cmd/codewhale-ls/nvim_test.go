//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
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

// These tests run the real Neovim (Debian's 0.7.2, installed by .ci/run)
// headless with no plugin: vim.lsp.start_client against this program,
// driven by the Lua scripts in testdata/nvim, which write what they saw
// as JSON. Each subtest reproduces one point of issue 8 §3.

// findNvim returns Neovim's path. These tests run only with
// CODEWHALE_E2E=1, under which a missing Neovim fails.
func findNvim(t *testing.T) string {
	t.Helper()
	if os.Getenv("CODEWHALE_E2E") != "1" {
		t.Skip("drives the real Neovim; runs only with CODEWHALE_E2E=1 (.ci/run sets it)")
	}
	path, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("CODEWHALE_E2E=1 but nvim is not installed (apt-get install neovim)")
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatalf("nvim --version: %v", err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	// The scripts use vim.lsp.start_client, vim.diagnostic and
	// vim.lsp.diagnostic.get_line_diagnostics: 0.6 and later (each script
	// also checks for start_client).
	m := regexp.MustCompile(`^NVIM v0\.(\d+)\.`).FindStringSubmatch(first)
	if m == nil || len(m[1]) == 1 && m[1] < "6" {
		t.Fatalf("%s: need Neovim 0.6 or later", first)
	}
	t.Log(first)
	return path
}

// nvimWorld is one test's directories: dir/home is HOME (its .codewhale
// is CODEWHALE_HOME), dir/cache is XDG_CACHE_HOME (Neovim's lsp.log).
type nvimWorld struct {
	nvim, dir, home, codewhale string
	results                    string // results.lua, the scripts' shared writer (nvimtest)
}

func newNvimWorld(t *testing.T, nvim string) *nvimWorld {
	t.Helper()
	dir := t.TempDir()
	w := &nvimWorld{nvim: nvim, dir: dir, home: filepath.Join(dir, "home")}
	w.codewhale = filepath.Join(w.home, ".codewhale")
	w.write(t, filepath.Join(w.codewhale, "config.toml"), w.hermetic())
	w.results = nvimtest.WriteResultsLib(t, dir)
	return w
}

// hermetic keeps the load away from /etc.
func (w *nvimWorld) hermetic() string {
	return fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n", filepath.Join(w.dir, "managed.toml"), filepath.Join(w.dir, "requirements.toml"))
}

func (w *nvimWorld) write(t *testing.T, path, text string) {
	t.Helper()
	nvimtest.Write(t, path, []byte(text), 0o600)
}

func (w *nvimWorld) mkdir(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *nvimWorld) env() []string {
	self, _ := os.Executable()
	lib, _ := filepath.Abs(filepath.Join("testdata", "nvim", "lib.lua"))
	// The server is this test binary; built with -race it would sleep a
	// second at exit (the race detector's atexit_sleep_ms), which the
	// shutdown timing would count as the server's.
	return []string{asServer + "=1", "GORACE=atexit_sleep_ms=0", "PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home, "CODEWHALE_HOME=" + w.codewhale, "XDG_RUNTIME_DIR=" + w.home,
		"XDG_CACHE_HOME=" + filepath.Join(w.dir, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(w.dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(w.dir, "data"), "XDG_STATE_HOME=" + filepath.Join(w.dir, "state"),
		"CWLS_BIN=" + self, "CWLS_LIB=" + lib, "CWLS_RESULTS=" + w.results, "CWLS_DIR=" + w.dir, "CWLS_OUT=" + filepath.Join(w.dir, "results.json")}
}

// run runs testdata/nvim/<script> and decodes what it wrote into out;
// an error the script recorded fails the test.
func (w *nvimWorld) run(t *testing.T, script string, out any) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "nvim", script))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.nvim, "--headless", "--clean", "-c", "luafile "+path)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	cmd.WaitDelay = 5 * time.Second
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim %s: %v\n%s", script, err, output)
	}
	if err := nvimtest.ReadResults(filepath.Join(w.dir, "results.json"), out); err != nil {
		t.Fatalf("%s: %v\n%s\nlsp.log:\n%s", script, err, output, w.lspLog())
	}
}

func (w *nvimWorld) lspLog() string {
	b, _ := os.ReadFile(filepath.Join(w.dir, "cache", "nvim", "lsp.log"))
	return string(b)
}

// check runs `codewhale-ls check` on workspace in the same environment and
// returns each file's codes, sorted, without repeats.
func (w *nvimWorld) check(t *testing.T, workspace string) map[string][]string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "check", "--workspace", workspace, "--format", "json", "--fail-level", "none")
	cmd.Env = w.env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	var report struct {
		Files []struct {
			Path        string
			Diagnostics []struct{ Code string }
		}
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("check output %s: %v", out, err)
	}
	codes := map[string][]string{}
	for _, f := range report.Files {
		var c []string
		for _, d := range f.Diagnostics {
			c = append(c, d.Code)
		}
		codes[filepath.Base(f.Path)] = uniqueSorted(c)
	}
	return codes
}

func uniqueSorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

type lspRange struct {
	Start, End struct{ Line, Character int }
}

func TestNeovim(t *testing.T) {
	nvim := findNvim(t)

	t.Run("completion", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		var res struct {
			Completion []struct {
				Name, Omnifunc string
				TextEdit       string `json:"text_edit"`
				Labels         []string
			}
		}
		w.run(t, "completion.lua", &res)
		want := map[string]string{
			"unclosed quote":   `action = "deny"`,
			"after equals":     `action = "deny"`,
			"dash in the word": `approval_policy = "on-request"`,
		}
		if len(res.Completion) != len(want) {
			t.Fatalf("results %+v", res.Completion)
		}
		for _, c := range res.Completion {
			if c.Omnifunc != want[c.Name] || c.TextEdit != want[c.Name] {
				t.Errorf("%s: accepted by Neovim's completion %q, by the text edit %q, want %q (items %v)", c.Name, c.Omnifunc, c.TextEdit, want[c.Name], c.Labels)
			}
		}
	})

	t.Run("quick fix outside the range", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		w.write(t, filepath.Join(w.codewhale, "config.toml"), w.hermetic()+"sandbox_mode = \"Read-Only\"\n")
		var res struct {
			Cursor          struct{ Line, Character int }
			DiagnosticRange lspRange `json:"diagnostic_range"`
			ContextCodes    []string `json:"context_codes"`
			Titles          []string
		}
		w.run(t, "codeaction.lua", &res)
		if res.Cursor.Line != res.DiagnosticRange.Start.Line || res.Cursor.Character >= res.DiagnosticRange.Start.Character {
			t.Fatalf("the cursor %+v is not on the line before the finding %+v", res.Cursor, res.DiagnosticRange)
		}
		if !slices.Contains(res.ContextCodes, "CW602") || !slices.Contains(res.Titles, `Change to "read-only"`) {
			t.Errorf("context %v: actions %q, want the CW602 fix", res.ContextCodes, res.Titles)
		}
	})

	t.Run("CW005 does not hide its cause", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		w.write(t, filepath.Join(w.codewhale, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
		var res struct {
			Published []struct {
				Code, Message string
				Range         lspRange
			}
			VirtualText map[string]string `json:"virtual_text"`
		}
		w.run(t, "cw005.lua", &res)
		var whole, cause []lspRange
		for _, d := range res.Published {
			switch d.Code {
			case "CW005":
				whole = append(whole, d.Range)
				if strings.Contains(d.Message, "problem(s)") {
					t.Errorf("CW005 says %q", d.Message)
				}
			case "CW002":
				cause = append(cause, d.Range)
			}
		}
		if len(whole) != 1 || len(cause) != 1 {
			t.Fatalf("published %+v", res.Published)
		}
		if whole[0].Start.Line != 0 || whole[0].End.Line >= cause[0].Start.Line {
			t.Errorf("CW005 at %+v, cause at %+v: want CW005 on the first line, clear of the cause", whole[0], cause[0])
		}
		if shown := res.VirtualText[fmt.Sprint(cause[0].Start.Line)]; !strings.Contains(shown, "did you mean `action`") {
			t.Errorf("virtual text on the cause's line shows %q", shown)
		}
	})

	t.Run("shutdown and exit", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		var res struct {
			Exited bool
			Exit   struct{ Code, Signal int }
			ExitMS float64 `json:"exit_ms"`
		}
		w.run(t, "shutdown.lua", &res)
		t.Logf("the server ended %.1f ms after the client stopped it", res.ExitMS)
		if !res.Exited || res.Exit.Code != 0 || res.Exit.Signal != 0 {
			t.Errorf("exit %+v", res)
		}
		log := w.lspLog()
		if strings.Contains(log, "[ERROR]") || strings.Contains(log, "did not close") {
			t.Errorf("Neovim's LSP log records an error:\n%s", log)
		}
	})

	t.Run("no root, no git", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		project := filepath.Join(w.dir, "project")
		w.write(t, filepath.Join(project, ".codewhale", "config.toml"), "approval_policy = \"sometimes\"\n")
		w.write(t, filepath.Join(project, ".codewhale", "hooks.toml"), "[[hooks]]\nevent = \"nope\"\ncommand = \"true\"\n")
		w.write(t, filepath.Join(project, ".codewhale", "constitution.json"), "{\"schema_version\": \"one\"}\n")
		want := w.check(t, project)
		var res struct {
			Codes  map[string][]string
			Status struct{ Workspace string }
		}
		w.run(t, "noroot.lua", &res)
		for _, name := range []string{"config.toml", "hooks.toml", "constitution.json"} {
			got := uniqueSorted(res.Codes[name])
			if len(want[name]) == 0 {
				t.Errorf("%s: check reports nothing; the fixture must have findings", name)
			}
			if !slices.Equal(got, want[name]) {
				t.Errorf("%s: Neovim got %v, check reports %v", name, got, want[name])
			}
		}
		if res.Status.Workspace != project {
			t.Errorf("codewhale/status workspace %q, want %q", res.Status.Workspace, project)
		}
	})

	t.Run("workspace folders as 0.7 adds them", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		first, added, unknown := filepath.Join(w.dir, "first"), filepath.Join(w.dir, "added"), filepath.Join(w.dir, "unknown")
		w.mkdir(t, filepath.Join(first, ".git"), filepath.Join(added, ".git"), filepath.Join(unknown, ".git"))
		w.write(t, filepath.Join(added, ".codewhale", "config.toml"), "approval_policy = \"sometimes\"\n")
		var res struct {
			AddedCodes     []string `json:"added_codes"`
			Added, Unknown struct {
				Decision, Reason string
				Layer            int
			}
		}
		w.run(t, "folders.lua", &res)
		if len(res.AddedCodes) == 0 {
			t.Error("the added folder's overlay got no diagnostics")
		}
		if res.Added.Decision != "allow" {
			t.Errorf("a call in the added folder: %+v", res.Added)
		}
		if res.Unknown.Decision != "deny" || res.Unknown.Layer != 1 {
			t.Fatalf("a call in a folder never added: %+v", res.Unknown)
		}
		for _, ws := range []string{first, added} {
			if n := strings.Count(res.Unknown.Reason, ws); n != 1 {
				t.Errorf("the refusal names %s %d times: %q", ws, n, res.Unknown.Reason)
			}
		}
	})

	t.Run("always with a symlinked permissions.toml", func(t *testing.T) {
		w := newNvimWorld(t, nvim)
		ws := filepath.Join(w.dir, "ws")
		w.mkdir(t, filepath.Join(ws, ".git"))
		dotfiles := filepath.Join(w.dir, "dotfiles", "permissions.toml")
		const mine = "# kept in dotfiles\n"
		w.write(t, dotfiles, mine)
		link := filepath.Join(w.codewhale, "permissions.toml")
		if err := os.Symlink(dotfiles, link); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Decision struct{ Decision string }
			Prompts  []struct {
				Summary, Detail, Reason string
				Choices                 []struct{ ID, Title string }
			}
		}
		w.run(t, "symlink.lua", &res)
		if len(res.Prompts) != 1 {
			t.Fatalf("prompts %+v, decision %+v", res.Prompts, res.Decision)
		}
		p := res.Prompts[0]
		for _, c := range p.Choices {
			if c.ID == "always" {
				t.Errorf("the prompt offers %q with permissions.toml a symlink", c.Title)
			}
		}
		if text := p.Summary + " " + p.Detail + " " + p.Reason; !strings.Contains(text, "symlink") {
			t.Errorf("the prompt does not say why \"always\" is missing: %+v", p)
		}
		if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("permissions.toml is no longer a symlink (%v)", err)
		}
		if b, err := os.ReadFile(dotfiles); err != nil || string(b) != mine {
			t.Errorf("the dotfiles permissions.toml changed: %q, %v", b, err)
		}
	})
}
