//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/editortest"
)

// TestHookAsksTheEditor is issue 11's path end to end, in real processes:
// an editor runs `codewhale-ls serve` for a workspace; another agent's hook,
// `codewhale-ls hook claude-code`, meets a call Codewhale would ask about;
// the editor is prompted over the approval socket, naming the agent, and
// its answer is what the agent gets. No answer ends before the agent's
// hook timeout, and an editor that vanishes mid-prompt is a deny.
func TestHookAsksTheEditor(t *testing.T) {
	for _, tc := range []struct {
		answer, want string
		// reason is a word of the deny's reason.
		reason string
	}{
		{"once", "allow", ""},
		{"always", "allow", ""},
		{"deny", "deny", "denied"},
		{"nothing", "deny", "timed out"},
		{"vanish", "deny", "approval failed"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			e := startEditor(t, tc.answer)
			// An agent that waits 8 s for its hook: the prompt gets what
			// is left after the margins (docs/agents.md "In time").
			started := time.Now()
			got, reason := e.runHook(t, "cargo test", "--timeout", "8")
			if took := time.Since(started); took >= 8*time.Second {
				t.Errorf("the hook answered after %v, when the agent had stopped waiting at 8s", took)
			}
			if got != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("the editor's %s: the agent got %q (%s)", tc.answer, got, reason)
			}
			prompted := e.Prompts()
			if len(prompted) != 1 || prompted[0]["agent"] != "claude-code" || !strings.Contains(prompted[0]["summary"].(string), "cargo test") {
				t.Errorf("the editor was prompted %d times: %v", len(prompted), prompted)
			}
			if tc.answer == "always" {
				rules, _ := os.ReadFile(filepath.Join(e.home, ".codewhale", "permissions.toml"))
				if !strings.Contains(string(rules), `command = "cargo test"`) {
					t.Errorf("permissions.toml after always:\n%s", rules)
				}
				// The rule now allows the call without a prompt.
				if got, reason := e.runHook(t, "cargo test"); got != "allow" || len(e.Prompts()) != 1 {
					t.Errorf("after always: %s (%s), %d prompts", got, reason, len(e.Prompts()))
				}
			}
		})
	}
}

// hookEditor is a running `codewhale-ls serve` with a scripted editor.
type hookEditor struct {
	*editortest.Editor
	server *exec.Cmd
	home   string
	ws     string
}

// startEditor starts the server for a workspace with an editor that
// answers every approval prompt with answer; "nothing" never answers and
// "vanish" kills the server instead.
func startEditor(t *testing.T, answer string) *hookEditor {
	t.Helper()
	server, home := serverCommand(t, "serve", "--stdio")
	e := &hookEditor{server: server, home: home, ws: filepath.Join(home, "ws")}
	if err := os.MkdirAll(filepath.Join(e.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codewhale"), 0o700); err != nil {
		t.Fatal(err)
	}
	reply := editortest.Choice(answer)
	switch answer {
	case "nothing":
		reply = func(done <-chan struct{}) (any, error) {
			<-done
			return nil, errors.New("the editor closed")
		}
	case "vanish":
		reply = func(done <-chan struct{}) (any, error) {
			_ = server.Process.Kill()
			<-done
			return nil, errors.New("the editor closed")
		}
	}
	options := map[string]any{"approvals": "codewhale", "codewhaleVersion": "0.10.1", "decisionLog": false}
	e.Editor = editortest.Start(t, server, e.ws, home, options, reply)
	return e
}

// runHook runs `codewhale-ls hook claude-code` for a Bash call in the
// editor's workspace and returns the agent's decision and its reason.
func (e *hookEditor) runHook(t *testing.T, command string, args ...string) (decision, reason string) {
	t.Helper()
	event, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command},
		"tool_use_id": "toolu_1", "permission_mode": "default", "cwd": e.ws, "session_id": "s1",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hook := exec.CommandContext(ctx, e.server.Path, append([]string{"hook", "claude-code", "--codewhale-version", "0.10.1"}, args...)...)
	hook.Env = e.server.Env
	hook.Dir = e.ws // agents start their hooks in the session's directory
	hook.Stdin = bytes.NewReader(event)
	var out, errOut bytes.Buffer
	hook.Stdout, hook.Stderr = &out, &errOut
	if err := hook.Run(); err != nil {
		t.Fatalf("hook: %v\n%s", err, errOut.String())
	}
	if out.Len() == 0 {
		return "allow", "" // an allow is silence (docs/agents.md)
	}
	var answer struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
		t.Fatalf("hook stdout %q: %v", out.String(), err)
	}
	return answer.HookSpecificOutput.PermissionDecision, answer.HookSpecificOutput.PermissionDecisionReason
}
