package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const claudeSettings = "{\n  // mine\n  \"model\": \"opus\",\n}\n"

func writeClaudeSettings(t *testing.T, ws string) string {
	t.Helper()
	path := filepath.Join(ws, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(claudeSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tempHome points HOME at a new directory and unsets the agents'
// directory variables, so that no test reads or writes the real home.
func tempHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME", "COPILOT_HOME"} {
		t.Setenv(v, "")
	}
	return home
}

func TestHookInstallWithoutTerminalOnlyShowsTheDiff(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	path := writeClaudeSettings(t, ws)
	code, out, errOut := runCLI(t, "y\n", "hook", "install", "claude-code", "--project", "--workspace", ws)
	if code != 1 || !strings.Contains(out, "+  \"hooks\": {\"PreToolUse\"") || !strings.Contains(errOut, "--yes") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != claudeSettings {
		t.Fatalf("changed without confirmation:\n%s", got)
	}
}

func TestHookInstallYesThenUninstallRoundTrip(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	path := writeClaudeSettings(t, ws)
	code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--project", "--workspace", ws, "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	installed, _ := os.ReadFile(path)
	if !strings.Contains(string(installed), ` hook claude-code --timeout 600 || exit 2","timeout":600}`) || !strings.Contains(string(installed), "// mine") {
		t.Fatalf("installed:\n%s", installed)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--project", "--workspace", ws, "--yes"); code != 0 || !strings.Contains(errOut, "already installed") {
		t.Fatalf("second install: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "hook", "uninstall", "claude-code", "--project", "--workspace", ws, "--yes"); code != 0 {
		t.Fatalf("uninstall: exit %d %s", code, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != claudeSettings {
		t.Fatalf("round trip changed the file:\n%q", got)
	}
}

func TestHookInstallConfirmsOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		answer  string
		code    int
		changed bool
	}{{"y\n", 0, true}, {"n\n", 1, false}, {"", 1, false}} {
		ws := t.TempDir()
		path := writeClaudeSettings(t, ws)
		var out, errb bytes.Buffer
		code := runHookInstall("install", []string{"claude-code", "--project", "--workspace", ws}, true, strings.NewReader(tc.answer), &out, &errb)
		got, _ := os.ReadFile(path)
		if code != tc.code || (string(got) != claudeSettings) != tc.changed || !strings.Contains(errb.String(), "[y/N]") {
			t.Errorf("answer %q: exit %d, changed %v\n%s", tc.answer, code, string(got) != claudeSettings, errb.String())
		}
	}
}

// TestHookInstallDefaultsToUserLevel: without --project the hook goes in
// the user's settings, which the agent reads in every session, wherever
// it starts; --workspace alone is refused rather than ignored.
func TestHookInstallDefaultsToUserLevel(t *testing.T) {
	home := tempHome(t)
	ws := t.TempDir()
	t.Chdir(ws)
	code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	user := filepath.Join(home, ".claude", "settings.json")
	if got, err := os.ReadFile(user); err != nil || !strings.Contains(string(got), "hook claude-code --timeout 600") {
		t.Fatalf("user file: %v\n%s", err, got)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude")); err == nil {
		t.Fatal("the default install wrote the project's file")
	}
	if code, _, errOut := runCLI(t, "", "hook", "uninstall", "claude-code", "--yes"); code != 0 {
		t.Fatalf("uninstall: exit %d %s", code, errOut)
	}
	if got, _ := os.ReadFile(user); string(got) != "{}\n" {
		t.Fatalf("uninstall left %q", got)
	}
	if code, _, errOut := runCLI(t, "", "hook", "uninstall", "claude-code", "--yes"); code != 0 || !strings.Contains(errOut, "add --project") {
		t.Fatalf("uninstall with nothing at user level: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--workspace", ws, "--yes"); code != 1 || !strings.Contains(errOut, "add --project") {
		t.Fatalf("--workspace without --project: exit %d %s", code, errOut)
	}
}

// TestHookInstallUserLevelHonoursTheAgentsHome: the user-level file goes
// where the agent reads it, in the directory its variable names, and
// never under the default directory the variable moved away from.
func TestHookInstallUserLevelHonoursTheAgentsHome(t *testing.T) {
	for _, tc := range []struct{ agent, variable, file, moved string }{
		{"codex", "CODEX_HOME", "hooks.json", ".codex"},
		{"claude-code", "CLAUDE_CONFIG_DIR", "settings.json", ".claude"},
		{"gemini-cli", "GEMINI_CLI_HOME", ".gemini/settings.json", ".gemini"},
		{"copilot-cli", "COPILOT_HOME", "hooks/codewhale-ls.json", ".copilot"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			home := tempHome(t)
			dir := t.TempDir()
			t.Setenv(tc.variable, dir)
			if code, _, errOut := runCLI(t, "", "hook", "install", tc.agent, "--user", "--yes"); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tc.file))); err != nil || !strings.Contains(string(got), "hook "+tc.agent) {
				t.Fatalf("%s/%s: %v\n%s", tc.variable, tc.file, err, got)
			}
			if _, err := os.Stat(filepath.Join(home, tc.moved)); err == nil {
				t.Fatalf("wrote ~/%s although %s is set", tc.moved, tc.variable)
			}
		})
	}
}

// TestHookInstallCopilotUserRoundTrip: Copilot's user-level hook is a file
// of our own in $COPILOT_HOME/hooks; install then uninstall gives back its
// bytes, and `check` counts it for a repository's Copilot hooks.
func TestHookInstallCopilotUserRoundTrip(t *testing.T) {
	tempHome(t)
	copilotHome := t.TempDir()
	t.Setenv("COPILOT_HOME", copilotHome)
	path := filepath.Join(copilotHome, "hooks", "codewhale-ls.json")
	const before = "{\r\n  // ours, kept by hand\r\n  \"version\": 1,\r\n}\r\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "copilot-cli", "--yes"); code != 0 {
		t.Fatalf("install: exit %d %s", code, errOut)
	}
	installed, _ := os.ReadFile(path)
	if !strings.Contains(string(installed), `"preToolUse": [{"type":"command","bash":`) {
		t.Fatalf("installed:\n%s", installed)
	}
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".github", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".github", "hooks", "audit.json"), []byte(`{"version": 1, "hooks": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := home(t, "", "")
	if _, out, _ := runCLI(t, "", "check", "--config", cfg, "--workspace", ws); strings.Contains(out, "CW700") {
		t.Fatalf("the user-level Copilot hook is not seen by check:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "", "hook", "uninstall", "copilot-cli", "--yes"); code != 0 {
		t.Fatalf("uninstall: exit %d %s", code, errOut)
	}
	after, _ := os.ReadFile(path)
	if string(after) != before {
		t.Fatalf("round trip changed the file:\nwant %q\ngot  %q", before, after)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode not kept: %v %v", fi, err)
	}
}

// TestHookInstallSaysWhenTheEntryIsNotRead: install names the sessions
// the agent runs without the entry it writes.
func TestHookInstallSaysWhenTheEntryIsNotRead(t *testing.T) {
	tempHome(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"claude-code", "--project"}, []string{"subdirectory", "`codewhale-ls hook install claude-code` (user level"}},
		{[]string{"gemini-cli", "--project"}, []string{"subdirectory", "untrusted folder"}},
		{[]string{"copilot-cli", "--project"}, []string{"untrusted folder"}},
		{[]string{"codex", "--project"}, []string{"trusted", "/hooks", "codex exec"}},
		{[]string{"codex"}, []string{"/hooks", "codex exec"}},
	} {
		ws := t.TempDir()
		args := append([]string{"hook", "install"}, tc.args...)
		if slices.Contains(tc.args, "--project") {
			args = append(args, "--workspace", ws)
		}
		code, _, errOut := runCLI(t, "", append(args, "--yes")...)
		for _, want := range tc.want {
			if code != 0 || !strings.Contains(errOut, want) {
				t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.args, code, want, errOut)
			}
		}
	}
}

func TestHookInstallRefusesBadInput(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	path := filepath.Join(ws, ".cursor", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{\n  \"version\": 1\n  \"hooks\": {}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hook", "install", "cursor", "--project", "--workspace", ws, "--yes"}, "line 3, column 3 (byte 19)"},
		{[]string{"hook", "install", "codex", "--yes"}, "CODEX_HOME=relative is not an absolute path"},
		{[]string{"hook", "install", "aider", "--workspace", ws}, `unknown agent "aider"`},
		{[]string{"hook", "install", "cursor", "--project", "--user"}, "exclude each other"},
		{[]string{"hook", "uninstall"}, "name one agent"},
	} {
		t.Setenv("CODEX_HOME", "relative")
		code, _, errOut := runCLI(t, "", tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %s", tc.args, code, errOut)
		}
	}
}

func TestCheckWarnsAboutUnhookedAgent(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	writeClaudeSettings(t, ws)
	cfg := home(t, "", "")
	code, out, errOut := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "warning")
	if code != 2 || !strings.Contains(out, "CW700") || !strings.Contains(out, "settings.json") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--project", "--workspace", ws, "--yes"); code != 0 {
		t.Fatal(errOut)
	}
	// Hooked in the project only: a note (not a warning) that a session
	// started in a subdirectory does not read it.
	if code, out, _ := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "warning"); code != 0 || !strings.Contains(out, "CW700") || !strings.Contains(out, "only in this project file") || !strings.Contains(out, "subdirectory") {
		t.Fatalf("no per-project note after a project install (exit %d):\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--yes"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, _ := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "info"); strings.Contains(out, "CW700") {
		t.Fatalf("still reported after the user-level install (exit %d):\n%s", code, out)
	}
	// A local file that turns Claude's hooks off turns ours off too.
	local := filepath.Join(ws, ".claude", "settings.local.json")
	if err := os.WriteFile(local, []byte(`{"disableAllHooks": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "warning"); code != 2 || !strings.Contains(out, "CW700") || !strings.Contains(out, "settings.local.json") || !strings.Contains(out, "disableAllHooks") {
		t.Fatalf("disableAllHooks not reported (exit %d):\n%s\n%s", code, out, errOut)
	}
}

// TestCheckReportsCopilotHooksTurnedOff: Copilot's disableAllHooks in the
// repository's .github/copilot/settings.json is CW700, as Claude's is.
func TestCheckReportsCopilotHooksTurnedOff(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	if code, _, errOut := runCLI(t, "", "hook", "install", "copilot-cli", "--yes"); code != 0 {
		t.Fatal(errOut)
	}
	settings := filepath.Join(ws, ".github", "copilot", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte("{\n  \"disableAllHooks\": true\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := home(t, "", "")
	if code, out, errOut := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "warning"); code != 2 || !strings.Contains(out, "CW700") || !strings.Contains(out, filepath.Join(".github", "copilot", "settings.json")) || !strings.Contains(out, "disableAllHooks") {
		t.Fatalf("Copilot's disableAllHooks not reported (exit %d):\n%s\n%s", code, out, errOut)
	}
}
