//go:build unix

package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestHookProcessExitCodes: run as the agent runs it, a separate process,
// a broken event is a deny with exit 0 (Claude Code: JSON deny) or exit 2
// (Codex, which honours only that): never another code, which the agents
// treat as a failed hook and run the tool.
func TestHookProcessExitCodes(t *testing.T) {
	for _, c := range []struct {
		agent, stdin string
		exit         int
		stdout       string
	}{
		{"claude-code", "", 0, `"permissionDecision":"deny"`},
		{"codex", "{not json", 2, `"permissionDecision":"deny"`},
		{"gemini-cli", "[]", 2, `"decision":"deny"`},
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
