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
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
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
			prompted := e.prompts()
			if len(prompted) != 1 || prompted[0]["agent"] != "claude-code" || !strings.Contains(prompted[0]["summary"].(string), "cargo test") {
				t.Errorf("the editor was prompted %d times: %v", len(prompted), prompted)
			}
			if tc.answer == "always" {
				rules, _ := os.ReadFile(filepath.Join(e.home, ".codewhale", "permissions.toml"))
				if !strings.Contains(string(rules), `command = "cargo test"`) {
					t.Errorf("permissions.toml after always:\n%s", rules)
				}
				// The rule now allows the call without a prompt.
				if got, reason := e.runHook(t, "cargo test"); got != "allow" || len(e.prompts()) != 1 {
					t.Errorf("after always: %s (%s), %d prompts", got, reason, len(e.prompts()))
				}
			}
		})
	}
}

// hookEditor is a running `codewhale-ls serve` with a scripted editor.
type hookEditor struct {
	server *exec.Cmd
	home   string
	ws     string

	mu       sync.Mutex
	prompted []map[string]any
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
	stdin, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	unanswered := make(chan struct{})
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(editorPipes{stdout, stdin}))
	conn.Go(context.Background(), jsonrpc2.AsyncHandler(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "codewhale/approve" {
			return nil, nil
		}
		var p map[string]any
		_ = json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.prompted = append(e.prompted, p)
		e.mu.Unlock()
		switch answer {
		case "nothing":
			<-unanswered
			return nil, errors.New("the editor closed")
		case "vanish":
			_ = server.Process.Kill()
			<-unanswered
			return nil, errors.New("the editor closed")
		}
		return map[string]string{"choice": answer}, nil
	}))
	// The server dies first, so the connection's reader ends and Close
	// does not wait on it.
	t.Cleanup(func() {
		_ = server.Process.Kill()
		<-exited
		close(unanswered)
		conn.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{
		"processId": nil, "rootUri": "file://" + e.ws, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"approvals": "codewhale", "codewhaleVersion": "0.10.1", "decisionLog": false},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// The server listens once initialized: the socket appears when bound
	// and is restricted to 0600 once it listens.
	for {
		if m, _ := filepath.Glob(filepath.Join(home, "codewhale-ls", "*.sock")); len(m) == 1 {
			if info, err := os.Lstat(m[0]); err == nil && info.Mode().Perm() == 0o600 {
				return e
			}
		}
		if ctx.Err() != nil {
			t.Fatal("the server never listened for other agents' hooks")
		}
		time.Sleep(20 * time.Millisecond)
	}
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

// prompts are the approval prompts the editor has been shown.
func (e *hookEditor) prompts() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]any(nil), e.prompted...)
}
