//go:build unix

package main

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestHookProcessExitCodes: run as the agent runs it, a separate process,
// a broken event is a deny with exit 0 (Claude Code, Gemini CLI: JSON
// deny) or exit 2 (Codex, which honours only that): never another code,
// which the agents treat as a failed hook and run the tool.
func TestHookProcessExitCodes(t *testing.T) {
	for _, c := range []struct {
		agent, stdin string
		exit         int
		stdout       string
	}{
		{"claude-code", "", 0, `"permissionDecision":"deny"`},
		{"codex", "{not json", 2, `"permissionDecision":"deny"`},
		{"gemini-cli", "[]", 0, `"decision":"deny"`},
	} {
		cmd, _ := serverCommand(t, "hook", c.agent, "--codewhale-version", "0.9.10")
		cmd.Stdin = strings.NewReader(c.stdin)
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.exit || !strings.Contains(string(out), c.stdout) {
			t.Errorf("%s %q: exit %d, stdout %s; want exit %d and %s", c.agent, c.stdin, code, out, c.exit, c.stdout)
		}
	}
}

// TestHookEventThatNeverEnds: an agent (or a wrapper) that keeps the hook's
// standard input open gets a deny before its hook timeout, not a hook that
// waits past it (after which most agents run the tool).
func TestHookEventThatNeverEnds(t *testing.T) {
	cmd, _ := serverCommand(t, "hook", "claude-code", "--codewhale-version", "0.9.10", "--timeout", "10")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if _, err := io.WriteString(stdin, `{"tool_name":"Bash","tool_input":{"command":"ls"}`); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), `"permissionDecision":"deny"`) || !strings.Contains(string(out), "did not end") {
		t.Errorf("stdout %s", out)
	}
	if took := time.Since(started); took >= 10*time.Second {
		t.Errorf("answered after %v, when the agent had stopped waiting at 10s", took)
	}
}
