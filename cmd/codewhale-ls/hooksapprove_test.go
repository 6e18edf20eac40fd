package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// denyingHooks is a project hooks.toml whose one hook denies every shell
// call: when it runs, the call is denied at layer 3 (Codewhale's reason
// names the hook's event, not its words).
const denyingHooks = "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"echo 'frozen by the project hook' >&2; exit 2\"\ncontinue_on_error = false\n"

// trustedHooksWorld is a hook world whose workspace is trusted and holds
// hooks as its .codewhale/hooks.toml; userExtra is appended to the trust
// table of config.toml.
func trustedHooksWorld(t *testing.T, hooks, userExtra string) (hookWorld, string) {
	w := newHookWorld(t)
	real, err := filepath.EvalSymlinks(w.ws)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.codewhaleHome, "config.toml"), "[projects."+tomlBasicString(real)+"]\ntrust_level = \"trusted\"\n"+userExtra)
	path := filepath.Join(w.ws, ".codewhale", "hooks.toml")
	writeFile(t, path, hooks)
	return w, path
}

const gitStatusEvent = `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`

// TestUnapprovedHooksRefusalNamesTheCommand: while a trusted workspace's
// hooks.toml is unapproved, a call its hook matches is held for a human,
// and the refusal an agent gets says how to approve it (issue 24, point 9).
func TestUnapprovedHooksRefusalNamesTheCommand(t *testing.T) {
	_, path := trustedHooksWorld(t, denyingHooks, "")
	code, out, errOut := runCLI(t, gitStatusEvent, "hook", "codex", "--codewhale-version", "0.10.1")
	if code != 2 || !strings.Contains(errOut, "codewhale-ls hooks approve "+path) || !strings.Contains(out, `"deny"`) || strings.Contains(errOut, "ToolCallBefore hook denied") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant a deny naming `codewhale-ls hooks approve %s`", code, out, errOut, path)
	}
}

// TestCodewhaleApprovalRunsTheHooks: the same file approved in Codewhale
// (hooks_sha256 in config.toml) loads, so its hook runs and decides.
func TestCodewhaleApprovalRunsTheHooks(t *testing.T) {
	trustedHooksWorld(t, denyingHooks, "hooks_sha256 = "+tomlBasicString(config.HookDigest([]byte(denyingHooks)))+"\n")
	code, out, errOut := runCLI(t, gitStatusEvent, "hook", "codex", "--codewhale-version", "0.10.1")
	if code != 2 || !strings.Contains(errOut, "ToolCallBefore hook denied") || !strings.Contains(errOut, "tool_call_before hooks, layer 3") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant the project hook's deny", code, out, errOut)
	}
}

// TestHooksApprove: `codewhale-ls hooks approve` shows the file (invisible
// characters escaped) and its digest, records nothing unconfirmed, and
// with --yes records the digest so the hook runs; approving again edits
// the one line, the rest of the store kept byte for byte.
func TestHooksApprove(t *testing.T) {
	hooks := strings.Replace(denyingHooks, "frozen", "fro\u200bzen", 1)
	w, path := trustedHooksWorld(t, hooks, "")
	store := filepath.Join(w.codewhaleHome, config.HookApprovalsFile)
	other := "# mine\n[projects.\"/elsewhere/.codewhale/hooks.toml\"]\napproved_sha256 = \"abc\"\n"
	writeFile(t, store, other)

	var out, errOut bytes.Buffer
	if code := hooksApprove([]string{path}, false, strings.NewReader(""), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "so nobody can confirm; pass --yes") {
		t.Fatalf("unconfirmed: exit %d, stderr %s", code, errOut.String())
	}
	digest := config.HookDigest([]byte(hooks))
	for _, want := range []string{"⟪ZWSP U+200B⟫", "sha256 " + digest, path} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the file shown does not hold %q:\n%s", want, out.String())
		}
	}
	if got, _ := os.ReadFile(store); string(got) != other {
		t.Fatalf("an unconfirmed approval changed the store:\n%s", got)
	}

	// On a terminal, a "no" records nothing; a "y" records.
	if code := hooksApprove([]string{path}, true, strings.NewReader("n\n"), &out, &errOut); code != 1 {
		t.Fatalf("answered no: exit %d", code)
	}
	if code := hooksApprove([]string{path}, true, strings.NewReader("y\n"), &out, &errOut); code != 0 {
		t.Fatalf("answered yes: exit %d, stderr %s", code, errOut.String())
	}
	got, _ := os.ReadFile(store)
	if !strings.HasPrefix(string(got), other) || !strings.Contains(string(got), "approved_sha256 = \""+digest+"\"") {
		t.Fatalf("store after the approval:\n%s", got)
	}
	code, hookOut, hookErr := runCLI(t, gitStatusEvent, "hook", "codex", "--codewhale-version", "0.10.1")
	if code != 2 || !strings.Contains(hookErr, "ToolCallBefore hook denied") {
		t.Fatalf("after the approval the hook does not run: exit %d\n%s\n%s", code, hookOut, hookErr)
	}

	// An edit needs a new approval, which replaces the digest in place.
	edited := hooks + "# edited\n"
	writeFile(t, path, edited)
	if code := hooksApprove([]string{"--yes", path}, false, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("re-approval: exit %d, stderr %s", code, errOut.String())
	}
	again, _ := os.ReadFile(store)
	if want := strings.Replace(string(got), digest, config.HookDigest([]byte(edited)), 1); string(again) != want {
		t.Errorf("re-approval rewrote the store as\n%s\nwant\n%s", again, want)
	}
	if fi, err := os.Stat(store); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("store mode: %v %v", fi.Mode(), err)
	}
}

// TestHooksApproveRefuses: nothing is recorded for an untrusted workspace
// (its hooks never load), a file with errors, a file that is not a
// project's hooks.toml, or a store that does not parse.
func TestHooksApproveRefuses(t *testing.T) {
	t.Run("untrusted", func(t *testing.T) {
		w := newHookWorld(t)
		path := filepath.Join(w.ws, ".codewhale", "hooks.toml")
		writeFile(t, path, denyingHooks)
		var out, errOut bytes.Buffer
		if code := hooksApprove([]string{"--yes", path}, false, nil, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "not trusted") {
			t.Errorf("exit %d, stderr %s", code, errOut.String())
		}
		if _, err := os.Stat(filepath.Join(w.codewhaleHome, config.HookApprovalsFile)); err == nil {
			t.Error("a store was written")
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, path := trustedHooksWorld(t, "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\ntimeout_secs = 0\n", "")
		var out, errOut bytes.Buffer
		if code := hooksApprove([]string{"--yes", path}, false, nil, &out, &errOut); code != 1 || !strings.Contains(out.String(), "CW300") {
			t.Errorf("exit %d, stdout %s, stderr %s", code, out.String(), errOut.String())
		}
	})
	t.Run("not a hooks file", func(t *testing.T) {
		w := newHookWorld(t)
		path := filepath.Join(w.ws, "hooks.toml")
		writeFile(t, path, denyingHooks)
		var out, errOut bytes.Buffer
		if code := hooksApprove([]string{"--yes", path}, false, nil, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "not a project hooks file") {
			t.Errorf("exit %d, stderr %s", code, errOut.String())
		}
	})
	t.Run("store does not parse", func(t *testing.T) {
		w, path := trustedHooksWorld(t, denyingHooks, "")
		store := filepath.Join(w.codewhaleHome, config.HookApprovalsFile)
		writeFile(t, store, "[projects\n")
		var out, errOut bytes.Buffer
		if code := hooksApprove([]string{"--yes", path}, false, nil, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "does not parse") {
			t.Errorf("exit %d, stderr %s", code, errOut.String())
		}
		if got, _ := os.ReadFile(store); string(got) != "[projects\n" {
			t.Errorf("the store was changed: %q", got)
		}
	})
}
