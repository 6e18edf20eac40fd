//lint:file-ignore SA1019 the fake editor speaks as older clients do, with rootUri, which the server must keep honouring

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/rpc/transport"
)

// TestMain gives the servers a runtime directory of their own for the
// approval sockets (rpc/remote.go), never the user's; its name is short, as
// a socket's path must fit in 104 bytes.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cwrpc")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}

// world is a hermetic Codewhale home and workspace in a temp dir.
type world struct {
	tmp, home, ws string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	tmp := t.TempDir()
	w := &world{tmp: tmp, home: filepath.Join(tmp, "home"), ws: filepath.Join(tmp, "ws")}
	for _, d := range []string{filepath.Join(w.home, ".codewhale"), filepath.Join(w.ws, ".git"), filepath.Join(w.ws, ".codewhale")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// configPath is the user config.toml; permissions.toml is its sibling.
func (w *world) configPath() string { return filepath.Join(w.home, ".codewhale", "config.toml") }
func (w *world) permissionsPath() string {
	return filepath.Join(w.home, ".codewhale", "permissions.toml")
}
func (w *world) overlayPath() string { return filepath.Join(w.ws, ".codewhale", "config.toml") }

// hermeticKeys keep the load away from /etc/deepseek.
func (w *world) hermeticKeys() string {
	return fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n", filepath.Join(w.tmp, "managed.toml"), filepath.Join(w.tmp, "requirements.toml"))
}

func (w *world) write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// session is a fake editor connected to a real server over a pipe.
type session struct {
	t      testing.TB
	world  *world
	conn   jsonrpc2.Conn
	server protocol.Server
	toSrv  io.WriteCloser // raw access for malformed input
	served chan error

	mu        sync.Mutex
	published map[uri.URI]*protocol.PublishDiagnosticsParams
	versions  map[uri.URI][]int32 // every publication's version, in order
	counts    map[uri.URI][]int   // every publication's number of diagnostics, in order
	log       []string
	changed   chan struct{} // closed and replaced on every publish

	// approve answers codewhale/approve and window/showMessageRequest
	// (set before initialize); nil answers null.
	approve   func(ctx context.Context, method string, params json.RawMessage) (any, error)
	prompts   []json.RawMessage // every prompt received, in order
	promptID  jsonrpc2.ID       // the JSON-RPC id of the latest prompt
	decisions []json.RawMessage // every codewhale/decision notification
	// countOnly keeps only the number of decisions (benchmarks).
	countOnly bool
	decided   int
}

// logTo puts the server's log into the session log, printed on failure.
type logTo struct{ s *session }

func (l logTo) Write(b []byte) (int, error) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.s.log = append(l.s.log, "server: "+strings.TrimSpace(string(b)))
	return len(b), nil
}

type pipeRWC struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipeRWC) Close() error {
	p.ReadCloser.Close()
	return p.WriteCloser.Close()
}

// newSession connects over in-memory pipes (io.Pipe: every write waits
// for its read, which keeps tests deterministic).
func newSession(t testing.TB, w *world, opts Options) *session {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	return connect(t, w, opts, c2sR, c2sW, s2cR, s2cW)
}

// newOSPipeSession connects over OS pipes, buffered by the kernel as a
// real editor's stdio is (benchmarks).
func newOSPipeSession(t testing.TB, w *world, opts Options) *session {
	t.Helper()
	c2sR, c2sW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s2cR, s2cW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, w, opts, c2sR, c2sW, s2cR, s2cW)
}

func connect(t testing.TB, w *world, opts Options, c2sR io.ReadCloser, c2sW io.WriteCloser, s2cR io.ReadCloser, s2cW io.WriteCloser) *session {
	t.Helper()
	if opts.Env == nil {
		opts.Env = config.MapEnv{"HOME": w.home}
	}
	s := &session{t: t, world: w, toSrv: c2sW, served: make(chan error, 1),
		published: map[uri.URI]*protocol.PublishDiagnosticsParams{}, versions: map[uri.URI][]int32{}, counts: map[uri.URI][]int{}, changed: make(chan struct{})}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(logTo{s}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	go func() { s.served <- Serve(context.Background(), c2sR, s2cW, opts) }()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{s2cR, c2sW}), jsonrpc2.WithCodec(transport.Codec{}))
	s.conn.Go(context.Background(), s.handle)
	s.server = protocol.ServerDispatcher(s.conn)
	t.Cleanup(func() {
		s.conn.Close()
		select {
		case <-s.served:
		case <-time.After(5 * time.Second):
			t.Errorf("server did not stop")
		}
		if t.Failed() {
			t.Logf("session log:\n%s", strings.Join(s.log, "\n"))
		}
	})
	return s
}

// handle is the editor's side: it records diagnostics and answers nothing
// else.
func (s *session) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "codewhale/approve", protocol.MethodWindowShowMessageRequest:
		// Answering may take a while (a user deciding): free the read loop.
		jsonrpc2.Async(ctx)
		params := json.RawMessage(append([]byte(nil), req.Params()...))
		s.mu.Lock()
		s.prompts = append(s.prompts, params)
		s.promptID = req.ID()
		approve := s.approve
		s.mu.Unlock()
		if approve == nil {
			return nil, nil
		}
		return approve(ctx, req.Method(), params)
	}
	if req.Method() == "codewhale/approvalRequested" { // approvalsAsync
		params := json.RawMessage(append([]byte(nil), req.Params()...))
		s.mu.Lock()
		s.prompts = append(s.prompts, params)
		approve := s.approve
		s.mu.Unlock()
		if approve != nil {
			// The answer is the client's own request, sent later.
			go approve(context.Background(), req.Method(), params)
		}
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.countOnly {
		s.log = append(s.log, "<- "+req.Method()+" "+string(req.Params()))
	}
	if req.Method() == "codewhale/decision" {
		s.decided++
		if !s.countOnly {
			s.decisions = append(s.decisions, append([]byte(nil), req.Params()...))
		}
		return nil, nil
	}
	if req.Method() != protocol.MethodTextDocumentPublishDiagnostics {
		return nil, nil
	}
	var p protocol.PublishDiagnosticsParams
	if err := protocol.Unmarshal(req.Params(), &p); err != nil {
		return nil, err
	}
	s.published[p.URI] = &p
	v, _ := p.Version.Get()
	s.versions[p.URI] = append(s.versions[p.URI], v)
	s.counts[p.URI] = append(s.counts[p.URI], len(p.Diagnostics))
	close(s.changed)
	s.changed = make(chan struct{})
	return nil, nil
}

func (s *session) initialize(caps protocol.ClientCapabilities) *protocol.InitializeResult {
	s.t.Helper()
	return s.initializeWith(caps, nil)
}

// initializeWith adds initializationOptions to the config path.
func (s *session) initializeWith(caps protocol.ClientCapabilities, extra map[string]any) *protocol.InitializeResult {
	s.t.Helper()
	return s.initializeAs(caps, nil, extra)
}

// initializeAs is initializeWith for a client naming itself info (nil:
// no clientInfo).
func (s *session) initializeAs(caps protocol.ClientCapabilities, info *protocol.ClientInfo, extra map[string]any) *protocol.InitializeResult {
	s.t.Helper()
	root := uri.File(s.world.ws)
	all := map[string]any{"config": s.world.configPath()}
	for k, v := range extra {
		all[k] = v
	}
	opts, _ := json.Marshal(all)
	params := &protocol.InitializeParams{RootURI: &root, Capabilities: caps, InitializationOptions: opts}
	if info != nil {
		params.ClientInfo = *info
	}
	res, err := s.server.Initialize(s.ctx(), params)
	if err != nil {
		s.t.Fatalf("initialize: %v", err)
	}
	if err := s.server.Initialized(s.ctx(), &protocol.InitializedParams{}); err != nil {
		s.t.Fatal(err)
	}
	return res
}

func (s *session) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s.t.Cleanup(cancel)
	return ctx
}

func (s *session) open(path string, version int32, text string) uri.URI {
	s.t.Helper()
	u := uri.File(path)
	if err := s.server.DidOpen(s.ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "toml", Version: version, Text: text}}); err != nil {
		s.t.Fatal(err)
	}
	return u
}

func (s *session) change(u uri.URI, version int32, changes ...protocol.TextDocumentContentChangeEvent) {
	s.t.Helper()
	if err := s.server.DidChange(s.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: changes}); err != nil {
		s.t.Fatal(err)
	}
}

// waitFor waits until ok holds for the diagnostics last published for u.
func (s *session) waitFor(u uri.URI, what string, ok func(p *protocol.PublishDiagnosticsParams) bool) *protocol.PublishDiagnosticsParams {
	s.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		p, changed := s.published[u], s.changed
		s.mu.Unlock()
		if p != nil && ok(p) {
			return p
		}
		select {
		case <-changed:
		case <-deadline:
			s.t.Fatalf("timed out waiting for %s on %s; last: %s", what, u, describe(p))
			return nil
		}
	}
}

// waitVersion waits for the diagnostics of version v of u.
func (s *session) waitVersion(u uri.URI, v int32) *protocol.PublishDiagnosticsParams {
	s.t.Helper()
	return s.waitFor(u, fmt.Sprintf("version %d", v), func(p *protocol.PublishDiagnosticsParams) bool {
		got, ok := p.Version.Get()
		return ok && got == v
	})
}

// shutdown ends the session as an editor does.
func (s *session) shutdown() {
	s.t.Helper()
	if err := s.server.Shutdown(s.ctx()); err != nil {
		s.t.Fatalf("shutdown: %v", err)
	}
	if err := s.server.Exit(s.ctx()); err != nil {
		s.t.Fatalf("exit: %v", err)
	}
	select {
	case err := <-s.served:
		s.served <- err
		if err != nil {
			s.t.Errorf("Serve = %v, want nil after shutdown+exit", err)
		}
	case <-time.After(5 * time.Second):
		s.t.Fatal("server did not exit")
	}
}

func describe(p *protocol.PublishDiagnosticsParams) string {
	if p == nil {
		return "nothing"
	}
	b, _ := protocol.Marshal(p)
	return string(b)
}

// diag is the part of a diagnostic tests compare.
type diag struct {
	Code  string
	Range string // "line:char-line:char"
}

func summarize(ds []protocol.Diagnostic) []diag {
	out := []diag{}
	for _, d := range ds {
		code, _ := d.Code.(protocol.String)
		r := d.Range
		out = append(out, diag{string(code), fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)})
	}
	return out
}

func hasDiag(ds []protocol.Diagnostic, want diag) bool {
	for _, d := range summarize(ds) {
		if d == want {
			return true
		}
	}
	return false
}

func hasCode(ds []protocol.Diagnostic, code string) bool {
	for _, d := range summarize(ds) {
		if d.Code == code {
			return true
		}
	}
	return false
}

func protocolURI(path string) uri.URI { return uri.File(path) }
