// Package editortest stands in for an editor in front of a real
// `codewhale-ls serve --stdio`: it initializes the server for a workspace,
// answers every approval prompt (codewhale/approve) with a scripted
// answer, and records what it was asked. Tests of other agents' hooks use
// it as the editor that serves their approval socket (approvals/remote),
// or, declaring no way to show a prompt (StartClient), as an editor that
// must not serve it.
package editortest

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Answer is the editor's reply to one prompt. done is closed when the test
// is over and the server has ended: an answer that never comes waits for
// it.
type Answer func(done <-chan struct{}) (any, error)

// Choice answers every prompt with the same choice ("once", "deny", ...).
func Choice(choice string) Answer {
	return func(<-chan struct{}) (any, error) { return map[string]string{"choice": choice}, nil }
}

// Editor is the scripted editor of one server.
type Editor struct {
	mu       sync.Mutex
	prompted []map[string]any
}

// Prompts are the approval prompts the editor has been shown.
func (e *Editor) Prompts() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]any(nil), e.prompted...)
}

// Start starts server (an unstarted `codewhale-ls serve --stdio`),
// initializes it for workspace with the given initializationOptions, and
// returns once its approval socket listens in runtimeDir/codewhale-ls (the
// socket is bound first and restricted to 0600 once it listens). The
// server is killed when the test ends.
func Start(t testing.TB, server *exec.Cmd, workspace, runtimeDir string, options map[string]any, answer Answer) *Editor {
	t.Helper()
	return StartClient(t, server, workspace, runtimeDir, Client{Options: options, Prompts: true}, answer)
}

// Client is what the scripted editor declares at initialize.
type Client struct {
	// Options are the initializationOptions.
	Options map[string]any
	// Capabilities are the client capabilities; nil sends {}.
	Capabilities map[string]any
	// Prompts: the client declared a way to show prompts, so the server
	// serves the workspace's approval socket and StartClient waits for
	// it. Without, StartClient returns once codewhale/status says
	// approvals are not served (docs/editors.md), and fails the test if
	// it says they are.
	Prompts bool
	// Info is the clientInfo ({"name", "version"}) the editor names
	// itself with; nil sends none.
	Info map[string]string
}

// StartClient is Start for a client that declares c.
func StartClient(t testing.TB, server *exec.Cmd, workspace, runtimeDir string, c Client, answer Answer) *Editor {
	t.Helper()
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
	done := make(chan struct{})
	e := &Editor{}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	conn.Go(context.Background(), jsonrpc2.AsyncHandler(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "codewhale/approve" && req.Method() != protocol.MethodWindowShowMessageRequest {
			return nil, nil
		}
		var p map[string]any
		_ = json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.prompted = append(e.prompted, p)
		e.mu.Unlock()
		if req.Method() != "codewhale/approve" {
			return nil, nil // recorded; a dismissal
		}
		return answer(done)
	}))
	// The server dies first, so the connection's reader ends and Close
	// does not wait on it; then the answers still waiting end.
	t.Cleanup(func() {
		_ = server.Process.Kill()
		<-exited
		close(done)
		_ = conn.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	capabilities := c.Capabilities
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	params := map[string]any{
		"processId": nil, "rootUri": "file://" + workspace, "capabilities": capabilities,
		"initializationOptions": c.Options,
	}
	if c.Info != nil {
		params["clientInfo"] = c.Info
	}
	if _, err := conn.Call(ctx, protocol.MethodInitialize, params, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if !c.Prompts {
		// Answered after initialized was handled (the server handles
		// messages in order), so the socket would exist by now.
		var st struct {
			Approvals struct {
				Served bool   `json:"served"`
				Reason string `json:"reason"`
			} `json:"approvals"`
		}
		if _, err := conn.Call(ctx, "codewhale/status", nil, &st); err != nil {
			t.Fatal(err)
		}
		if st.Approvals.Served {
			t.Fatal("the server serves approvals to a client that declared no way to show them")
		}
		return e
	}
	for {
		if m, _ := filepath.Glob(filepath.Join(runtimeDir, "codewhale-ls", "*.sock")); len(m) == 1 {
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

type pipes struct {
	io.Reader
	io.Writer
}

func (pipes) Close() error { return nil }
