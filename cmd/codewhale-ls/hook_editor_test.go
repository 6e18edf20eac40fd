package main

import (
	"bytes"
	"context"
	"encoding/json"
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
// its answer is what the agent gets.
func TestHookAsksTheEditor(t *testing.T) {
	for _, tc := range []struct {
		answer, want string
	}{
		{"once", "allow"},
		{"deny", "deny"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			server, home := serverCommand(t, "serve", "--stdio")
			ws := filepath.Join(home, "ws")
			if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
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
			stop := func() {
				_ = server.Process.Kill()
				<-exited
			}

			var mu sync.Mutex
			var prompted []map[string]any
			conn := jsonrpc2.NewConn(jsonrpc2.NewStream(editorPipes{stdout, stdin}))
			conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
				if req.Method() != "codewhale/approve" {
					return nil, nil
				}
				var p map[string]any
				_ = json.Unmarshal(req.Params(), &p)
				mu.Lock()
				prompted = append(prompted, p)
				mu.Unlock()
				return map[string]string{"choice": tc.answer}, nil
			})
			// The server dies first, so the connection's reader ends and
			// Close does not wait on it.
			defer func() {
				stop()
				conn.Close()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			root := "file://" + ws
			if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{
				"processId": nil, "rootUri": root, "capabilities": map[string]any{},
				"initializationOptions": map[string]any{"approvals": "codewhale", "codewhaleVersion": "0.10.1", "decisionLog": false},
			}, nil); err != nil {
				t.Fatal(err)
			}
			if err := conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
				t.Fatal(err)
			}
			// The server listens once initialized: the socket appears.
			sockets := filepath.Join(home, "codewhale-ls")
			for {
				if m, _ := filepath.Glob(filepath.Join(sockets, "*.sock")); len(m) == 1 {
					break
				}
				if ctx.Err() != nil {
					t.Fatal("the server never listened for other agents' hooks")
				}
				time.Sleep(20 * time.Millisecond)
			}

			event, _ := json.Marshal(map[string]any{
				"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "cargo test"},
				"tool_use_id": "toolu_1", "permission_mode": "default", "cwd": ws, "session_id": "s1",
			})
			hook := exec.CommandContext(ctx, server.Path, "hook", "claude-code", "--codewhale-version", "0.10.1")
			hook.Env = server.Env
			hook.Stdin = bytes.NewReader(event)
			var out, errOut bytes.Buffer
			hook.Stdout, hook.Stderr = &out, &errOut
			if err := hook.Run(); err != nil {
				t.Fatalf("hook: %v\n%s", err, errOut.String())
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
			if got := answer.HookSpecificOutput.PermissionDecision; got != tc.want {
				t.Errorf("the editor answered %s; the agent got %q (%s)", tc.answer, got, answer.HookSpecificOutput.PermissionDecisionReason)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(prompted) != 1 || prompted[0]["agent"] != "claude-code" || !strings.Contains(prompted[0]["summary"].(string), "cargo test") {
				t.Errorf("the editor was prompted %d times: %v", len(prompted), prompted)
			}
		})
	}
}
