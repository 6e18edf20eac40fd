package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withBinary makes hook install see path as its own binary, and found
// (or not) a codewhale-ls on PATH.
func withBinary(t *testing.T, path string, onPath bool) {
	t.Helper()
	oldExe, oldLook := executable, lookPath
	t.Cleanup(func() { executable, lookPath = oldExe, oldLook })
	executable = func() (string, error) { return path, nil }
	lookPath = func(name string) (string, error) {
		if onPath {
			return "/usr/local/bin/" + name, nil
		}
		return "", errors.New("executable file not found in $PATH")
	}
}

// A binary in a temporary directory or Go's build cache (`go run`) is
// deleted later: an entry naming it would fail every call (point 7).
func TestHookInstallRefusesABinaryThatWillNotLast(t *testing.T) {
	home := tempHome(t)
	cache := t.TempDir()
	t.Setenv("GOCACHE", cache)
	for _, binary := range []string{
		filepath.Join(t.TempDir(), "codewhale-ls"),
		filepath.Join(os.TempDir(), "go-build1234", "b001", "exe", "codewhale-ls"),
		filepath.Join(cache, "ab", "codewhale-ls"),
	} {
		withBinary(t, binary, true)
		code, out, errOut := runCLI(t, "", "hook", "install", "codex", "--yes")
		if code != 1 || out != "" || !strings.Contains(errOut, "go install") || !strings.Contains(errOut, "nothing was changed") {
			t.Errorf("%s: exit %d\n%s\n%s", binary, code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: hooks.json written: %v", binary, err)
		}
	}
	withBinary(t, "/opt/codewhale-ls/bin/codewhale-ls", true)
	if code, _, errOut := runCLI(t, "", "hook", "install", "codex", "--yes"); code != 0 {
		t.Fatalf("a lasting binary: exit %d %s", code, errOut)
	}
}

// A project's file, which the team commits, names codewhale-ls on PATH,
// not this machine's absolute path; without one on PATH it says why.
func TestHookInstallProjectNamesTheCommandOnPath(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	path := filepath.Join(ws, ".codex", "hooks.json")
	withBinary(t, "/home/me/go/bin/codewhale-ls", false)
	code, _, errOut := runCLI(t, "", "hook", "install", "codex", "--project", "--workspace", ws, "--yes")
	if code != 1 || !strings.Contains(errOut, "PATH") || !strings.Contains(errOut, "without --project") {
		t.Fatalf("not on PATH: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written: %v", err)
	}
	withBinary(t, "/home/me/go/bin/codewhale-ls", true)
	if code, _, errOut := runCLI(t, "", "hook", "install", "codex", "--project", "--workspace", ws, "--yes"); code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), `"command":"codewhale-ls hook codex --timeout 600 || exit 2"`) || strings.Contains(string(got), "/home/me") {
		t.Fatalf("hooks.json:\n%s", got)
	}
	if code, _, errOut := runCLI(t, "", "hook", "install", "codex", "--project", "--workspace", ws, "--yes"); code != 0 || !strings.Contains(errOut, "already installed") {
		t.Fatalf("second install: exit %d %s", code, errOut)
	}
}

// With no Codewhale policy, install says what every call will get from
// that agent and points to init (point 6).
func TestHookInstallSaysWhenNoPolicyExists(t *testing.T) {
	home := tempHome(t)
	for _, v := range []string{"CODEWHALE_HOME", "CODEWHALE_CONFIG_PATH", "DEEPSEEK_CONFIG_PATH"} {
		t.Setenv(v, "")
	}
	code, _, errOut := runCLI(t, "", "hook", "install", "codex", "--yes")
	for _, want := range []string{"no Codewhale policy exists", "npm test, cargo build, git commit", "every such call of codex is denied unless your editor", "`codewhale-ls approvals` runs in a terminal", "codewhale-ls init"} {
		if code != 0 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, no %q in:\n%s", code, want, errOut)
		}
	}
	if _, _, errOut := runCLI(t, "", "hook", "install", "claude-code", "--yes"); !strings.Contains(errOut, "else by `codewhale-ls approvals` when it runs in a terminal, else by claude-code's own prompt") {
		t.Errorf("claude-code:\n%s", errOut)
	}
	perms := filepath.Join(home, ".codewhale", "permissions.toml")
	if err := os.MkdirAll(filepath.Dir(perms), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(perms, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, errOut := runCLI(t, "", "hook", "install", "gemini-cli", "--yes"); strings.Contains(errOut, "no Codewhale policy") {
		t.Errorf("with a permissions.toml:\n%s", errOut)
	}
}

// Standard input that is a character device but no terminal (/dev/null,
// as in CI) cannot confirm: install says to pass --yes (point 11).
func TestHookInstallFromDevNullSaysToPassYes(t *testing.T) {
	home := tempHome(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var out, errb bytes.Buffer
	code := hookInstall("install", []string{"codex"}, null, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "pass --yes") || strings.Contains(errb.String(), "[y/N]") {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written: %v", err)
	}
}

// The Codex note says which releases need the feature flag (point 11).
func TestHookInstallCodexNoteNamesTheFeatureFlagReleases(t *testing.T) {
	tempHome(t)
	_, _, errOut := runCLI(t, "", "hook", "install", "codex", "--yes")
	for _, want := range []string{"[features] codex_hooks = true", "0.114.0 to 0.123.x", "from 0.124.0 hooks are on by default"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no %q in:\n%s", want, errOut)
		}
	}
}
