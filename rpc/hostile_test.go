package rpc

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// An agent cannot loosen the posture by asking for it: over LSP a looser
// posture or mode is a layer-1 deny naming both postures, before any
// prompt; a stricter one is honoured.
func TestAuthorizeRequestMayOnlyTightenThePosture(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("once"))
	for _, loosen := range []map[string]any{{"posture": "full-access"}, {"mode": "yolo"}, {"posture": "auto-review"}} {
		req := w.call("bash", bash("rm -rf ~/.ssh"))
		for k, v := range loosen {
			req[k] = v
		}
		for _, d := range []decided{s.authorize(req), s.explain(req)} {
			if d.Decision != "deny" || d.Layer != 1 || !strings.Contains(d.Reason, "looser than the posture the user chose, ask") {
				t.Errorf("%v: %s at layer %d: %q", loosen, d.Decision, d.Layer, d.Reason)
			}
		}
	}
	if n := s.promptCount(); n != 0 {
		t.Errorf("%d prompts for refused requests", n)
	}
	req := w.call("bash", bash("rm -rf ~/.ssh"))
	req["posture"] = "never"
	if d := s.authorize(req); d.Decision != "deny" || d.Layer == 1 {
		t.Errorf("posture never: %s at layer %d: %q", d.Decision, d.Layer, d.Reason)
	}
	s.shutdown()
}

// waitForCode waits until u's diagnostics include one of code.
func (s *session) waitForCode(u uri.URI, code string) {
	s.t.Helper()
	s.waitFor(u, code, func(p *protocol.PublishDiagnosticsParams) bool { return hasCode(p.Diagnostics, code) })
}

// explainIn explains a read-only call in workspace: refused at layer 1
// when the workspace is not admitted, decided by the policy otherwise.
func (s *session) explainIn(workspace string) decided {
	s.t.Helper()
	return s.explain(map[string]any{"tool": "read_file", "input": map[string]any{"path": "a"}, "workspace": workspace})
}

// initializeRaw initializes as the client sends it on the wire, for
// clients whose params protocol's types do not describe (Neovim 0.7).
func (s *session) initializeRaw(params map[string]any) {
	s.t.Helper()
	opts := map[string]any{"config": s.world.configPath(), "decisionLog": false}
	params["initializationOptions"] = opts
	if _, ok := params["capabilities"]; !ok {
		params["capabilities"] = map[string]any{}
	}
	var res json.RawMessage
	if _, err := s.conn.Call(s.ctx(), "initialize", params, &res); err != nil {
		s.t.Fatalf("initialize: %v", err)
	}
	if err := s.conn.Notify(s.ctx(), "initialized", map[string]any{}); err != nil {
		s.t.Fatal(err)
	}
}

// A repository that disables the shell cannot be escaped by naming a
// directory below it (existing or not, or a symlink inside it) as the
// workspace: over LSP the workspace must be exactly an opened one.
func TestAuthorizeWorkspaceMustBeExactlyOpened(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.overlayPath(), "allow_shell = false\n")
	if err := os.MkdirAll(filepath.Join(w.ws, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.ws, filepath.Join(w.ws, "link")); err != nil {
		t.Fatal(err)
	}
	s := approvalSession(t, w, nil, choose("once"))
	for _, sub := range []string{"x", "missing", "link", "x/.."} {
		req := w.call("bash", bash("ls"))
		req["workspace"] = w.ws + "/" + sub
		d := s.authorize(req)
		if sub == "x/.." { // cleaned, it is the folder itself
			expect(t, d, "deny", 2, "")
			continue
		}
		if d.Decision != "deny" || d.Layer != 1 || !strings.Contains(d.Reason, "not one the editor opened ("+w.ws+")") {
			t.Errorf("workspace %s: %s at layer %d: %q", sub, d.Decision, d.Layer, d.Reason)
		}
	}
	if n := s.promptCount(); n != 0 {
		t.Errorf("%d prompts", n)
	}
	s.shutdown()
}

// Neovim without a root (rootUri null, no folders): project policy files
// outside any git repository are linted in the directory holding their
// .codewhale/, as `codewhale-ls check` there lints them; status shows that
// workspace and authorize accepts it.
func TestNoRootLintsProjectFilesByTheirPlace(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	proj := filepath.Join(w.tmp, "proj") // no .git above it
	files := map[string]struct{ text, code string }{
		filepath.Join(proj, ".codewhale", "config.toml"):       {"approval_policy = \"auto\"\n", "CW100"},
		filepath.Join(proj, ".codewhale", "hooks.toml"):        {"bogus = 1\n", "CW303"},
		filepath.Join(proj, ".codewhale", "constitution.json"): {"{", "CW001"},
	}
	for path, f := range files {
		w.write(t, path, f.text)
	}
	s := newSession(t, w, Options{})
	s.initializeRaw(map[string]any{"processId": nil, "rootUri": nil, "rootPath": nil, "workspaceFolders": nil})
	for path, f := range files {
		u := s.open(path, 1, f.text)
		s.waitForCode(u, f.code)
	}
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.Workspace != proj {
		t.Errorf("status workspace %q, want %q", st.Workspace, proj)
	}
	if d := s.explainIn(proj); d.Layer == 1 {
		t.Errorf("the workspace of an opened policy file is refused: %q", d.Reason)
	}
	s.shutdown()
}

// Neovim 0.7 adds a folder with "removed": [[]]: the valid part applies,
// the added folder is linted and accepted for authorize.
func TestDidChangeWorkspaceFoldersToleratesMalformedEntries(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("once"))
	other := filepath.Join(w.tmp, "other")
	overlay := filepath.Join(other, ".codewhale", "config.toml")
	w.write(t, overlay, "approval_policy = \"auto\"\n")
	if d := s.explainIn(other); d.Layer != 1 {
		t.Fatalf("a folder not yet added: %s at layer %d", d.Decision, d.Layer)
	}
	event := json.RawMessage(`{"event": {"added": [{"uri": "` + string(uri.File(other)) + `", "name": "other"}, 7, {"uri": "https://example.com"}], "removed": [[]]}}`)
	if err := s.conn.Notify(s.ctx(), "workspace/didChangeWorkspaceFolders", event); err != nil {
		t.Fatal(err)
	}
	// Linted from disk, though not open.
	s.waitForCode(uri.File(overlay), "CW100")
	if d := s.explainIn(other); d.Layer == 1 {
		t.Errorf("the added folder is refused: %q", d.Reason)
	}
	s.shutdown()
}

// A FIFO and a sparse 6 GB file at policy paths of the repository neither
// freeze the server nor exhaust its memory: a deny the user saves next
// still reaches the decisions, and the server still shuts down.
func TestHostilePolicyPathsDoNotFreezeTheServer(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("deny"))
	cargo := w.call("bash", bash("cargo test"))
	s.until(cargo, "ask", 8)
	if err := syscall.Mkfifo(filepath.Join(w.ws, ".codewhale", "constitution.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(w.ws, ".codewhale", "hooks.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(6 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w.write(t, w.permissionsPath(), rule("cargo test", "deny"))
	s.until(cargo, "deny", 5)
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	s.shutdown()
}

// stallingEnv is a disk that stalls: once armed, reading the policy's
// environment overrides (every config.Load does) blocks until released.
type stallingEnv struct {
	config.MapEnv
	armed   atomic.Bool
	stalled chan struct{} // receives once per stalled read
	release chan struct{}
}

func (e *stallingEnv) Getenv(key string) string {
	if key == "CODEWHALE_APPROVAL_POLICY" && e.armed.Load() {
		e.stalled <- struct{}{}
		<-e.release
	}
	return e.MapEnv.Getenv(key)
}

// The first load of a workspace's policy reads the disk outside the
// server's lock: while it stalls, other messages are still answered.
func TestSlowFirstLoadStallsNoOtherMessage(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	other := filepath.Join(w.tmp, "other")
	for _, ws := range []string{w.ws, other} {
		w.write(t, filepath.Join(ws, ".codewhale", "config.toml"), "approval_policy = \"auto\"\n")
	}
	env := &stallingEnv{MapEnv: config.MapEnv{"HOME": w.home}, stalled: make(chan struct{}, 8), release: make(chan struct{})}
	s := newSession(t, w, Options{Env: env})
	s.initializeRaw(map[string]any{"rootUri": string(uri.File(w.ws)), "workspaceFolders": []map[string]any{
		{"uri": string(uri.File(w.ws)), "name": "ws"}, {"uri": string(uri.File(other)), "name": "other"}}})
	for _, ws := range []string{w.ws, other} { // the first checks are done
		s.waitForCode(uri.File(filepath.Join(ws, ".codewhale", "config.toml")), "CW100")
	}
	env.armed.Store(true)
	done := make(chan decided, 1)
	go func() { done <- s.explainIn(other) }()
	<-env.stalled // the first load of other's policy is stalled
	if d := s.explainIn(w.tmp); d.Layer != 1 {
		t.Errorf("refused workspace: %s at layer %d", d.Decision, d.Layer)
	}
	env.armed.Store(false)
	close(env.release)
	if d := <-done; d.Layer == 1 {
		t.Errorf("the folder was refused: %q", d.Reason)
	}
	s.shutdown()
}

// Once the root folder is removed, it is neither the default workspace
// nor reported by codewhale/status: with one folder left, that one is the
// default. Before, s.root kept the removed folder, so a request naming no
// workspace ran there and was refused. A decode error in an entry is
// logged as what it is, not as "not a file: URI".
func TestRemovedRootFolderIsNoLongerTheDefault(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("once"))
	other := filepath.Join(w.tmp, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	folder := func(p string) string { return `{"uri": "` + string(uri.File(p)) + `", "name": "x"}` }
	change := func(added, removed string) {
		t.Helper()
		event := json.RawMessage(`{"event": {"added": [` + added + `], "removed": [` + removed + `]}}`)
		if err := s.conn.Notify(s.ctx(), "workspace/didChangeWorkspaceFolders", event); err != nil {
			t.Fatal(err)
		}
	}
	status := func() string {
		t.Helper()
		var st Status
		if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
			t.Fatal(err)
		}
		return st.Workspace
	}
	noWorkspace := map[string]any{"tool": "read_file", "input": map[string]any{"path": "a"}}

	change(folder(other)+`, {"name": 5}`, folder(w.ws))
	if got := status(); got != other {
		t.Errorf("status workspace %q after removing the root, want the only folder left %q", got, other)
	}
	if d := s.explain(noWorkspace); d.Layer == 1 {
		t.Errorf("a request naming no workspace is refused: %q", d.Reason)
	}
	change(folder(w.ws), folder(other))
	change(folder(other), "")
	if got := status(); got != w.ws {
		t.Errorf("status workspace %q, want %q, the only folder when the default was chosen", got, w.ws)
	}
	change(folder(filepath.Join(w.tmp, "third")), folder(w.ws))
	if got := status(); got != "" {
		t.Errorf("status workspace %q with two folders and the default removed, want none", got)
	}
	var rpcErr *jsonrpc2.Error
	if _, err := s.conn.Call(s.ctx(), "codewhale/explain", noWorkspace, nil); !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "workspace: required") {
		t.Errorf("a request naming no workspace among two folders: %v, want it to name the field", err)
	}
	s.shutdown()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range s.log {
		if strings.Contains(line, "event.added[1]") && (strings.Contains(line, "not a file") || !strings.Contains(line, "malformed workspace folder")) {
			t.Errorf("a decode error logged as %s", line)
		}
	}
}
