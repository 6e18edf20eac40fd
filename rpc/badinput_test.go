package rpc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// raw writes one framed message exactly as given, as a broken client would.
func (s *session) raw(body string) {
	s.t.Helper()
	if _, err := fmt.Fprintf(s.toSrv, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		s.t.Fatal(err)
	}
}

// alive proves the server still answers.
func (s *session) alive(after string) {
	s.t.Helper()
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil || st.ConfigPath != s.world.configPath() {
		s.t.Fatalf("after %s: codewhale/status = %+v, %v", after, st, err)
	}
}

// TestBadInputKeepsServing: nothing a client sends ends the session.
func TestBadInputKeepsServing(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)

	_, err := s.conn.Call(s.ctx(), "codewhale/nonexistent", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown request: %v, want MethodNotFound", err)
	}
	_, err = s.conn.Call(s.ctx(), "textDocument/definition", map[string]any{}, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unserved standard request: %v, want MethodNotFound", err)
	}
	if _, err := s.conn.Call(s.ctx(), protocol.MethodTextDocumentHover, nil, nil); err == nil {
		t.Error("hover without params succeeded")
	}
	for _, n := range []struct {
		method string
		params any
	}{
		{"$/unknownThing", nil},
		{"codewhale/unknownNotification", nil},
		{protocol.MethodTextDocumentDidChange, nil},
		{protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": 5}},
		{protocol.MethodCancelRequest, nil},
		{protocol.MethodCancelRequest, map[string]any{"id": 99}},
		{protocol.MethodCancelRequest, map[string]any{"id": map[string]any{}}},
		{protocol.MethodTextDocumentDidChange, map[string]any{"textDocument": map[string]any{"uri": "file:///nowhere", "version": 2}, "contentChanges": []any{}}},
	} {
		if err := s.conn.Notify(s.ctx(), n.method, n.params); err != nil {
			t.Fatal(err)
		}
		s.alive(fmt.Sprintf("%s %v", n.method, n.params))
	}

	// A range that ends before it starts leaves the document as it was.
	u := s.open(w.permissionsPath(), 1, "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	s.waitVersion(u, 1)
	s.change(u, 2, partial(2, 5, 2, 0, "x"))
	s.alive("a reversed range")

	// Invalid UTF-8 in the text: decoded as U+FFFD, linted, answered.
	uPerm := string(u)
	s.raw(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uPerm + `","version":3},"contentChanges":[{"text":"acton = \"` + "\xff\xfe" + `\"\n"}]}}`)
	p := s.waitVersion(u, 3)
	if !hasDiag(p.Diagnostics, diag{"CW002", "0:0-0:5"}) {
		t.Errorf("invalid UTF-8: got %v", summarize(p.Diagnostics))
	}
	s.raw(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{not json`)
	s.alive("a frame that is not JSON")

	// Broken headers: each frame is skipped with its body, and the server
	// answers the next request.
	for _, header := range []string{"Content-Length: -1", "Content-Length: abc", "Content-Length: 1099511627776", strings.Repeat("X", 1<<20)} {
		if _, err := fmt.Fprintf(s.toSrv, "%s\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"shutdown\"}", header); err != nil {
			t.Fatal(err)
		}
		s.alive(fmt.Sprintf("a frame with header %.40q", header))
	}

	// A 10 MB permissions.toml: one rule, then ten megabytes of comment.
	big := "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n" + strings.Repeat("# padding padding padding padding padding padding padding padding\n", 10<<20/66)
	s.change(u, 4, &protocol.TextDocumentContentChangeWholeDocument{Text: big})
	p = s.waitVersion(u, 4)
	if !hasDiag(p.Diagnostics, diag{"CW002", "2:0-2:5"}) {
		t.Errorf("10 MB file: got %v", summarize(p.Diagnostics))
	}
	s.alive("a 10 MB document")
	s.shutdown()
}

// TestTruncatedFrame: a client that dies in the middle of a message ends
// the session cleanly.
func TestTruncatedFrame(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)
	fmt.Fprintf(s.toSrv, "Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":")
	s.toSrv.Close()
	select {
	case err := <-s.served:
		s.served <- err
		if err != nil {
			t.Errorf("Serve = %v, want a clean end", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server still running after the client went away")
	}
}

// TestExitWithoutShutdown is LSP's exit code 1.
func TestExitWithoutShutdown(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)
	if err := s.server.Exit(s.ctx()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.served:
		s.served <- err
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Errorf("Serve = %v, want ErrExitWithoutShutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit")
	}
}

// TestRequestsOutsideTheSession: before initialize and after shutdown.
func TestRequestsOutsideTheSession(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	var rpcErr *jsonrpc2.Error
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.ServerNotInitialized {
		t.Errorf("before initialize: %v", err)
	}
	s.initialize(editor)
	if _, err := s.server.Initialize(s.ctx(), &protocol.InitializeParams{}); err == nil {
		t.Error("a second initialize succeeded")
	}
	if err := s.server.Shutdown(s.ctx()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidRequest {
		t.Errorf("after shutdown: %v", err)
	}
	if err := s.server.Exit(s.ctx()); err != nil {
		t.Fatal(err)
	}
}

// A client that counts characters instead of bytes: its frame is lost,
// the next one is answered. Before, the next frame was skipped too.
func TestShortContentLengthLosesOnlyItsFrame(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)
	short := `{"jsonrpc":"2.0","method":"codewhale/none","params":"é"}`
	if _, err := fmt.Fprintf(s.toSrv, "Content-Length: %d\r\n\r\n%s", len([]rune(short)), short); err != nil {
		t.Fatal(err)
	}
	s.alive("a Content-Length one byte short")
	s.shutdown()
}
