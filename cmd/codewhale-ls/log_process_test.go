//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
)

// sameHome is codewhale-ls with args in the environment of an earlier
// serverCommand: the same temporary HOME and CODEWHALE_HOME.
func sameHome(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = env
	return cmd
}

// runIn runs codewhale-ls with args in env and directory dir ("" this
// process's) and returns its exit code, stdout and stderr.
func runIn(t *testing.T, env []string, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := sameHome(t, env, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out), errb.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out), errb.String()
}

// hookEvent is a pre-tool event of Claude Code's or Codex's running
// command in cwd.
func hookEvent(t *testing.T, session, cwd, command string) string {
	t.Helper()
	event, err := json.Marshal(map[string]any{
		"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(event)
}

// Issue 26, point 4, as a person runs it: decisions made by real hook
// processes (a rule's deny, an allow, a call carrying every token of the
// secrets corpus) are listed by `codewhale-ls log`, as JSON by `--json`,
// filtered, and re-explained by `log show`, with no token anywhere;
// `--follow` prints a decision made after it started, and Ctrl-C ends it
// with exit 0.
func TestLogThroughTheBinary(t *testing.T) {
	first, home := serverCommand(t)
	env := first.Env
	codewhaleHome := filepath.Join(home, ".codewhale")
	if err := os.MkdirAll(codewhaleHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codewhaleHome, "permissions.toml"), []byte("[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	tokens := secretstest.Tokens(4)
	var withTokens []string
	for _, tok := range tokens {
		withTokens = append(withTokens, "'"+tok.Text+"'")
	}
	calls := []struct{ agent, command string }{
		{"claude-code", "git push --force origin main"},
		{"codex", "ls -la"},
		{"claude-code", "curl -H 'Authorization: token " + tokens[0].Text + "' https://api.github.com/user " + strings.Join(withTokens, " ")},
	}
	for _, c := range calls {
		if code, out, errOut := runIn(t, env, repo, hookEvent(t, "sess-"+c.agent, repo, c.command), "hook", c.agent, "--codewhale-version", "0.10.1"); code != 0 && code != 2 {
			t.Fatalf("hook %s: exit %d\n%s%s", c.agent, code, out, errOut)
		}
	}

	code, table, errOut := runIn(t, env, "", "", "log")
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if code != 0 || len(lines) != 1+len(calls) || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("log: exit %d\n%s%s", code, table, errOut)
	}
	if !strings.Contains(lines[1], "deny") || !strings.Contains(lines[1], "exec_shell git push --force origin main") || !strings.Contains(lines[1], "the rule 'git push' at ") ||
		!strings.Contains(lines[2], "codex") {
		t.Errorf("log:\n%s", table)
	}
	code, jsonOut, errOut := runIn(t, env, "", "", "log", "--json")
	var receipts []approvals.Receipt
	for _, line := range strings.Split(strings.TrimSuffix(jsonOut, "\n"), "\n") {
		var r approvals.Receipt
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log --json: %v in %q", err, line)
		}
		receipts = append(receipts, r)
	}
	if code != 0 || len(receipts) != len(calls) || receipts[0].Decider == nil || receipts[0].Decider.Kind != approvals.DecidedByRule ||
		receipts[0].Decider.File != filepath.Join(codewhaleHome, "permissions.toml") || receipts[0].Decider.Line != 1 || receipts[1].Agent != "codex" {
		t.Fatalf("log --json: exit %d\n%s%s", code, jsonOut, errOut)
	}
	code, denied, _ := runIn(t, env, "", "", "log", "--json", "--decision", "deny", "--agent", "claude-code", "--repo", repo)
	if code != 0 || strings.Count(denied, "\n") != 2 || !strings.Contains(denied, receipts[0].ID) || strings.Contains(denied, receipts[1].ID) {
		t.Errorf("log --decision deny --agent claude-code --repo %s: exit %d\n%s", repo, code, denied)
	}
	code, shown, errOut := runIn(t, env, "", "", "log", "show", receipts[2].ID[:5])
	if code != 0 || !strings.Contains(shown, "receipt:    "+receipts[2].ID) || !strings.Contains(shown, "⟪secret: github token⟫") || !strings.Contains(shown, "layer by layer:") {
		t.Errorf("log show: exit %d\n%s%s", code, shown, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(codewhaleHome, "codewhale-ls", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"the log": string(raw), "log": table, "log --json": jsonOut, "log show": shown} {
		for _, tok := range tokens {
			for _, part := range strings.Split(tok.Secret, "\n") {
				if strings.Contains(text, part) {
					t.Errorf("%s shows the %s %q", name, tok.Kind, part)
				}
			}
		}
	}

	// --follow: the backlog, then what is decided after it started.
	follow := sameHome(t, env, "log", "--follow", "--json", "--limit", "1")
	stdout, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var followErr lockedBuffer
	follow.Stderr = &followErr
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer follow.Process.Kill()
	lineCh := make(chan string)
	go func() {
		defer close(lineCh)
		scanner := bufio.NewScanner(stdout)
		scanner.Buffer(nil, 1<<20)
		for scanner.Scan() {
			lineCh <- scanner.Text()
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case line := <-lineCh:
			return line
		case <-time.After(20 * time.Second):
			t.Fatalf("log --follow printed nothing; stderr %s", followErr.String())
		}
		return ""
	}
	if backlog := next(); !strings.Contains(backlog, receipts[2].ID) {
		t.Errorf("the backlog of --limit 1: %s", backlog)
	}
	waitFor(t, func() bool { return strings.Contains(followErr.String(), "following ") })
	if code, out, errOut := runIn(t, env, repo, hookEvent(t, "sess-4", repo, "git push origin HEAD"), "hook", "codex", "--codewhale-version", "0.10.1"); code != 0 && code != 2 {
		t.Fatalf("hook: exit %d\n%s%s", code, out, errOut)
	}
	if added := next(); !strings.Contains(added, `"agent":"codex"`) || !strings.Contains(added, "git push origin HEAD") {
		t.Errorf("followed: %s", added)
	}
	if err := follow.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range lineCh {
	}
	if err := follow.Wait(); err != nil {
		t.Errorf("log --follow after Ctrl-C: %v; stderr %s", err, followErr.String())
	}
}

// waitFor waits until done reports true, or fails the test after a while.
func waitFor(t *testing.T, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
