package main

import (
	"bytes"
	"os"
	"path/filepath"
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

func TestHookInstallWithoutTerminalOnlyShowsTheDiff(t *testing.T) {
	ws := t.TempDir()
	path := writeClaudeSettings(t, ws)
	code, out, errOut := runCLI(t, "y\n", "hook", "install", "claude-code", "--workspace", ws)
	if code != 1 || !strings.Contains(out, "+  \"hooks\": {\"PreToolUse\"") || !strings.Contains(errOut, "--yes") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != claudeSettings {
		t.Fatalf("changed without confirmation:\n%s", got)
	}
}

func TestHookInstallYesThenUninstallRoundTrip(t *testing.T) {
	ws := t.TempDir()
	path := writeClaudeSettings(t, ws)
	code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--workspace", ws, "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	installed, _ := os.ReadFile(path)
	if !strings.Contains(string(installed), ` hook claude-code --timeout 600 || exit 2","timeout":600}`) || !strings.Contains(string(installed), "// mine") {
		t.Fatalf("installed:\n%s", installed)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--workspace", ws, "--yes"); code != 0 || !strings.Contains(errOut, "already installed") {
		t.Fatalf("second install: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "hook", "uninstall", "claude-code", "--workspace", ws, "--yes"); code != 0 {
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
		code := runHookInstall("install", []string{"claude-code", "--workspace", ws}, true, strings.NewReader(tc.answer), &out, &errb)
		got, _ := os.ReadFile(path)
		if code != tc.code || (string(got) != claudeSettings) != tc.changed || !strings.Contains(errb.String(), "[y/N]") {
			t.Errorf("answer %q: exit %d, changed %v\n%s", tc.answer, code, string(got) != claudeSettings, errb.String())
		}
	}
}

func TestHookInstallUserScopeUsesHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GEMINI_CLI_HOME", "")
	if code, _, errOut := runCLI(t, "", "hook", "install", "gemini-cli", "--user", "--yes"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "settings.json")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COPILOT_HOME", "")
	if code, _, errOut := runCLI(t, "", "hook", "install", "copilot-cli", "--user", "--yes"); code != 0 {
		t.Fatalf("copilot --user: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".copilot", "hooks", "codewhale-ls.json")); err != nil {
		t.Fatal(err)
	}
}

func TestHookInstallRefusesBadInput(t *testing.T) {
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
		{[]string{"hook", "install", "cursor", "--workspace", ws, "--yes"}, "line 3, column 3 (byte 19)"},
		{[]string{"hook", "install", "aider", "--workspace", ws}, `unknown agent "aider"`},
		{[]string{"hook", "install", "cursor", "--project", "--user"}, "exclude each other"},
		{[]string{"hook", "uninstall"}, "name one agent"},
	} {
		code, _, errOut := runCLI(t, "", tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %s", tc.args, code, errOut)
		}
	}
}

func TestCheckWarnsAboutUnhookedAgent(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	ws := t.TempDir()
	writeClaudeSettings(t, ws)
	cfg := home(t, "", "")
	code, out, errOut := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "warning")
	if code != 2 || !strings.Contains(out, "CW700") || !strings.Contains(out, "settings.json") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--workspace", ws, "--yes"); code != 0 {
		t.Fatal(errOut)
	}
	// Hooked in the project only: a note, no longer a warning.
	if code, out, _ := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--fail-level", "warning"); code != 0 || !strings.Contains(out, "only in this project file") {
		t.Fatalf("still warned after install (exit %d):\n%s", code, out)
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
