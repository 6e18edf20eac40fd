package realagents

import (
	"context"
	"encoding/json"
	"io"
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

// editor is `codewhale-ls serve` for the session's repository with a
// scripted LSP client standing in for the editor: it answers every
// approval prompt (codewhale/approve, approvals/remote) with one choice.
// The agents' hooks find it through the approval socket under
// XDG_RUNTIME_DIR, which the session gives every process.
type editor struct {
	mu       sync.Mutex
	prompted []map[string]any
}

func (e *editor) prompts() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]any(nil), e.prompted...)
}

type pipes struct {
	io.Reader
	io.Writer
}

func (pipes) Close() error { return nil }

func startEditor(t *testing.T, s *session, answer string) *editor {
	t.Helper()
	server := exec.Command(s.hook, "serve", "--stdio")
	server.Dir = s.repo
	server.Env = s.baseEnv()
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
	exited := make(chan struct{})
	go func() {
		_ = server.Wait()
		close(exited)
	}()
	e := &editor{}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	conn.Go(context.Background(), jsonrpc2.AsyncHandler(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "codewhale/approve" {
			return nil, nil
		}
		var p map[string]any
		_ = json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.prompted = append(e.prompted, p)
		e.mu.Unlock()
		return map[string]string{"choice": answer}, nil
	}))
	// The server dies first, so the connection's reader ends and Close
	// does not wait on it.
	t.Cleanup(func() {
		_ = server.Process.Kill()
		<-exited
		_ = conn.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{
		"processId": nil, "rootUri": "file://" + s.repo, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"approvals": "codewhale"},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// The server listens once initialized; the socket is 0600 once it
	// listens (approvals/remote).
	for {
		if m, _ := filepath.Glob(filepath.Join(s.root, "codewhale-ls", "*.sock")); len(m) == 1 {
			if info, err := os.Lstat(m[0]); err == nil && info.Mode().Perm() == 0o600 {
				return e
			}
		}
		if ctx.Err() != nil {
			t.Fatal("the editor's server never listened for other agents' hooks")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A call Codewhale asks a human about (a shell command that writes, in
// the Ask posture; a file tool's write in the workspace needs nobody) goes
// to the editor when one serves the workspace, and its answer is what happens:
// once writes the file, deny does not and the model is told; without an
// editor nobody can approve it and nothing is written.
func TestEditorAnswers(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agent) {
		for _, answer := range []string{"once", "deny", "no editor"} {
			t.Run(strings.ReplaceAll(answer, " ", "-"), func(t *testing.T) {
				s := newSession(t, a)
				installUser(t, s)
				var e *editor
				if answer != "no editor" {
					e = startEditor(t, s, answer)
				}
				target := filepath.Join(s.repo, "edited.txt")
				r := s.run(s.repo, a.shell("touch edited.txt"))
				if written := s.exists(target); written != (answer == "once") {
					t.Errorf("%s: edited.txt written = %v; the model was told %q", answer, written, r.results[0])
				}
				if e == nil {
					return
				}
				prompted := e.prompts()
				if len(prompted) != 1 {
					t.Fatalf("the editor was prompted %d times: %v", len(prompted), prompted)
				}
				if prompted[0]["agent"] != a.name {
					t.Errorf("the prompt does not name the agent %s: %v", a.name, prompted[0])
				}
			})
		}
	})
}
