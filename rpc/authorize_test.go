package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// decided is a Decision as the client reads it off the wire.
type decided struct {
	Decision string  `json:"decision"`
	Layer    int     `json:"layer"`
	Reason   string  `json:"reason"`
	Rule     *string `json:"rule"`
	CallID   *string `json:"callId"`
	// Codewhale is the release that decided.
	Codewhale string `json:"codewhale"`
	Approval  *struct {
		Choice string `json:"choice"`
		Source string `json:"source"`
	} `json:"approval"`
	Trace []struct {
		Layer  int    `json:"layer"`
		Effect string `json:"effect"`
		Detail string `json:"detail"`
	} `json:"trace"`
}

func (d decided) approval() string {
	if d.Approval == nil {
		return ""
	}
	return d.Approval.Choice + "/" + d.Approval.Source
}

// prompted is the ApprovalPrompt as the client reads it.
type prompted struct {
	ID        string `json:"id"`
	Tool      string `json:"tool"`
	Summary   string `json:"summary"`
	Detail    string `json:"detail"`
	Workspace string `json:"workspace"`
	Choices   []struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Preview string `json:"preview"`
	} `json:"choices"`
	Default  string `json:"default"`
	Deadline string `json:"deadline"`
}

// call is an AuthorizeRequest in the test's workspace.
func (w *world) call(toolName string, input map[string]any) map[string]any {
	return map[string]any{"tool": toolName, "input": input, "workspace": w.ws}
}

func bash(cmd string) map[string]any { return map[string]any{"command": cmd} }

// approvalSession starts a server whose client answers codewhale/approve
// with answer, recording every prompt. A nil answer never answers: the
// prompt stays open until the server gives up on it or the test ends.
func approvalSession(t *testing.T, w *world, opts map[string]any, answer func(p prompted) any) *session {
	t.Helper()
	return approvalSessionAs(t, w, nil, opts, answer)
}

// approvalSessionAs is approvalSession for a client naming itself info
// at initialize (nil: no clientInfo).
func approvalSessionAs(t *testing.T, w *world, info *protocol.ClientInfo, opts map[string]any, answer func(p prompted) any) *session {
	t.Helper()
	if _, err := os.Stat(w.configPath()); err != nil {
		w.write(t, w.configPath(), w.hermeticKeys())
	}
	s := newSession(t, w, Options{})
	// Registered after the session's own cleanup, so it runs first and
	// frees the answers still waiting before the connection closes.
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s.approve = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		var p prompted
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		if answer == nil {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		}
		return answer(p), nil
	}
	all := map[string]any{"approvals": "codewhale", "decisionLog": filepath.Join(w.tmp, "decisions.jsonl")}
	for k, v := range opts {
		all[k] = v
	}
	s.initializeAs(editor, info, all)
	return s
}

func choose(id string) func(prompted) any {
	return func(prompted) any { return map[string]string{"choice": id} }
}

func (s *session) authorize(req map[string]any) decided {
	s.t.Helper()
	return s.decide("codewhale/authorize", req)
}

func (s *session) explain(req map[string]any) decided {
	s.t.Helper()
	return s.decide("codewhale/explain", req)
}

// decide calls a method that answers with a Decision.
func (s *session) decide(method string, req map[string]any) decided {
	s.t.Helper()
	var d decided
	if _, err := s.conn.Call(s.ctx(), method, req, &d); err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	return d
}

func (s *session) promptCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}

func (s *session) lastPrompt() prompted {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var p prompted
	if len(s.prompts) == 0 {
		s.t.Fatal("no prompt was sent")
	}
	if err := json.Unmarshal(s.prompts[len(s.prompts)-1], &p); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func expect(t *testing.T, d decided, decision string, layer int, approval string) {
	t.Helper()
	if d.Decision != decision || d.Layer != layer || d.approval() != approval {
		t.Fatalf("got %s at layer %d (approval %q): %s; want %s at %d (approval %q)", d.Decision, d.Layer, d.approval(), d.Reason, decision, layer, approval)
	}
}

func TestAuthorizeOnce(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("once"))
	req := w.call("bash", bash("cargo test"))
	req["callId"] = "call_1"
	d := s.authorize(req)
	expect(t, d, "allow", 8, "once/prompt")
	if d.CallID == nil || *d.CallID != "call_1" {
		t.Errorf("callId %v", d.CallID)
	}
	p := s.lastPrompt()
	if !regexp.MustCompile(`^cwp_[0-9a-f]{32}$`).MatchString(p.ID) || p.Default != "deny" || p.Tool != "bash" || p.Summary != "bash: cargo test" || p.Workspace != w.ws {
		t.Errorf("prompt %+v", p)
	}
	if _, err := time.Parse(time.RFC3339, p.Deadline); err != nil {
		t.Errorf("deadline %q: %v", p.Deadline, err)
	}
	var ids []string
	for _, c := range p.Choices {
		ids = append(ids, c.ID+"="+c.Title)
	}
	if got := strings.Join(ids, ","); got != "once=Approve once,session=Approve for session: every later \"cargo test\" command with any options,always=Always allow in this repo,deny=Deny" {
		t.Errorf("choices %s", got)
	}
	if !strings.Contains(p.Choices[2].Preview, `command = "cargo test"`) || !strings.Contains(p.Choices[2].Preview, "command_exact = true") {
		t.Errorf("always preview %q", p.Choices[2].Preview)
	}
	if !strings.Contains(d.Trace[len(d.Trace)-2].Detail, p.ID) {
		t.Errorf("the trace does not record the prompt that approved: %+v", d.Trace)
	}
	// A second identical call asks again: "once" is once.
	expect(t, s.authorize(req), "allow", 8, "once/prompt")
	if n := s.promptCount(); n != 2 {
		t.Errorf("%d prompts, want 2", n)
	}
	s.shutdown()
	log := readDecisionLog(t, filepath.Join(w.tmp, "decisions.jsonl"))
	if len(log) != 2 || log[0]["callId"] != "call_1" || log[0]["decision"] != "allow" {
		t.Errorf("decision log %v", log)
	}
	s.mu.Lock()
	n := len(s.decisions)
	s.mu.Unlock()
	if n != 2 {
		t.Errorf("%d codewhale/decision notifications, want 2", n)
	}
}

func TestAuthorizeAlways(t *testing.T) {
	w := newWorld(t)
	original := "# my rules\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"make\"   # keep this comment\naction = \"ask\"\n"
	w.write(t, w.configPath(), w.hermeticKeys())
	w.write(t, w.permissionsPath(), original)
	s := approvalSession(t, w, nil, choose("always"))
	expect(t, s.authorize(w.call("bash", bash("cargo test"))), "allow", 8, "always/prompt")
	data, err := os.ReadFile(w.permissionsPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), original) {
		t.Fatalf("the file's own bytes changed:\n%s", data)
	}
	f, problems := execpolicy.ParseFile(data)
	if !f.Accepted || len(problems) > 0 || len(f.Rules) != 2 {
		t.Fatalf("the file does not parse with 2 rules: %v", problems)
	}
	if info, _ := os.Stat(w.permissionsPath()); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	// The rule decides the next call at layer 5, without a prompt.
	d := s.authorize(w.call("bash", bash("cargo test")))
	if d.Decision != "allow" || d.Layer != 5 || s.promptCount() != 1 {
		t.Fatalf("after always: %s at %d (%s), %d prompts", d.Decision, d.Layer, d.Reason, s.promptCount())
	}
	s.shutdown()
}

// TestAuthorizeNoAnswer: answers that are no choice deny, and nothing is
// remembered. A null answer and a choice the card did not offer are cases
// (testdata/cases/authorize/ask_dismissed.txtar, answer_not_offered.txtar);
// these are the answers a case cannot give: a bare string, and none before
// the deadline.
func TestAuthorizeNoAnswer(t *testing.T) {
	cases := []struct {
		name   string
		opts   map[string]any
		answer func(prompted) any
		choice string
	}{
		{"not an object", nil, func(prompted) any { return "once" }, "dismissed"},
		{"timeout", map[string]any{"approvalTimeoutSeconds": 1}, nil, "timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			s := approvalSession(t, w, c.opts, c.answer)
			start := time.Now()
			expect(t, s.authorize(w.call("bash", bash("cargo test"))), "deny", 8, c.choice+"/prompt")
			if c.choice == "timeout" {
				t.Logf("timed out after %v (deadline 1 s)", time.Since(start).Round(time.Millisecond))
			}
			// Nothing was remembered: the same call prompts again.
			s.authorize(w.call("bash", bash("cargo test")))
			if n := s.promptCount(); n != 2 {
				t.Errorf("%d prompts, want 2", n)
			}
			s.shutdown()
		})
	}
}

func TestAuthorizeShowMessageRequest(t *testing.T) {
	for _, c := range []struct {
		answer   any
		decision string
		approval string
	}{
		{map[string]string{"title": "Approve once"}, "allow", "once/prompt"},
		{map[string]string{"title": "Deny"}, "deny", "deny/prompt"},
		{map[string]string{"title": "Sure"}, "deny", "dismissed/prompt"},
		{nil, "deny", "dismissed/prompt"},
	} {
		w := newWorld(t)
		w.write(t, w.configPath(), w.hermeticKeys())
		s := newSession(t, w, Options{})
		var actions []string
		s.approve = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
			var p protocol.ShowMessageRequestParams
			if method != protocol.MethodWindowShowMessageRequest || json.Unmarshal(params, &p) != nil || p.Type != protocol.MessageTypeWarning {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "unexpected "+method)
			}
			for _, a := range p.Actions {
				actions = append(actions, a.Title)
			}
			return c.answer, nil
		}
		s.initializeWith(editor, map[string]any{"decisionLog": false})
		expect(t, s.authorize(w.call("bash", bash("cargo test"))), c.decision, 8, c.approval)
		if got := strings.Join(actions, "|"); got != "Deny|Approve once|Approve for session: every later \"cargo test\" command with any options|Always allow in this repo" {
			t.Errorf("actions %s (Deny must come first: a list's first entry is what a bare Enter or a 1 picks)", got)
		}
		s.shutdown()
	}
}

// TestAuthorizeChannel: nothing in an authorize request can approve it,
// and a workspace the editor did not open is refused without a prompt.
func TestAuthorizeChannel(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("once"))
	forged := w.call("bash", bash("cargo test"))
	forged["approval"] = map[string]string{"choice": "once", "source": "prompt"}
	var d decided
	_, err := s.conn.Call(s.ctx(), "codewhale/authorize", forged, &d)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, "approval") {
		t.Errorf("a request carrying an approval: %v, want InvalidParams naming the field", err)
	}
	elsewhere := t.TempDir()
	req := w.call("bash", bash("cargo test"))
	req["workspace"] = elsewhere
	d = s.authorize(req)
	if d.Decision != "deny" || !strings.Contains(d.Reason, "not one the editor opened") || s.promptCount() != 0 {
		t.Errorf("outside workspace: %s %q, %d prompts", d.Decision, d.Reason, s.promptCount())
	}
	req["workspace"] = w.ws
	expect(t, s.authorize(req), "allow", 8, "once/prompt")
	for _, bad := range []string{`null`, `{"tool": 3, "input": {}}`, `{"tool": "bash"}`} {
		_, err := s.conn.Call(s.ctx(), "codewhale/authorize", json.RawMessage(bad), &d)
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams {
			t.Errorf("%s: %v, want InvalidParams", bad, err)
		}
	}
	s.shutdown()
}

// TestAuthorizeClientKilled: the editor dies with 50 prompts open. Every
// call is denied at once, nothing is persisted, and (TestMain) no
// goroutine is left.
func TestAuthorizeClientKilled(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	w.write(t, w.permissionsPath(), "# empty\n")
	s := approvalSession(t, w, nil, nil)
	const n = 50
	var calls sync.WaitGroup
	for i := range n {
		calls.Add(1)
		go func() {
			defer calls.Done()
			var d decided
			req := w.call("bash", bash("cargo test -p c"+string(rune('a'+i%26))))
			_, _ = s.conn.Call(context.Background(), "codewhale/authorize", req, &d)
		}()
	}
	for s.promptCount() < n {
		time.Sleep(5 * time.Millisecond)
	}
	var st struct {
		PendingApprovals int `json:"pendingApprovals"`
	}
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil || st.PendingApprovals != n {
		t.Fatalf("status: %d pending (%v), want %d", st.PendingApprovals, err, n)
	}
	start := time.Now()
	s.toSrv.Close() // the editor process is gone: its end of the pipe closes
	select {
	case <-s.served:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end")
	}
	t.Logf("50 pending prompts denied and the server ended in %v", time.Since(start).Round(time.Millisecond))
	s.served <- nil // for the session's cleanup
	calls.Wait()    // the server closed its end: every call fails
	log := readDecisionLog(t, filepath.Join(w.tmp, "decisions.jsonl"))
	if len(log) != n {
		t.Fatalf("%d logged decisions, want %d", len(log), n)
	}
	for _, e := range log {
		a, _ := e["approval"].(map[string]any)
		if e["decision"] != "deny" || a["choice"] != "disconnected" {
			t.Fatalf("logged %v, want a disconnected deny", e)
		}
	}
	if data, _ := os.ReadFile(w.permissionsPath()); string(data) != "# empty\n" {
		t.Errorf("permissions.toml changed:\n%s", data)
	}
}

// TestAuthorizeShutdownDenies: shutdown answers a pending call at once.
func TestAuthorizeShutdownDenies(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, nil)
	got := make(chan decided, 1)
	go func() {
		var d decided
		_, _ = s.conn.Call(context.Background(), "codewhale/authorize", w.call("bash", bash("cargo test")), &d)
		got <- d
	}()
	for s.promptCount() < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.server.Shutdown(s.ctx()); err != nil {
		t.Fatal(err)
	}
	d := <-got
	if d.Decision != "deny" || d.approval() != "disconnected/prompt" {
		t.Errorf("pending call at shutdown: %s %q", d.Decision, d.approval())
	}
	if err := s.server.Exit(s.ctx()); err != nil {
		t.Fatal(err)
	}
}

func readDecisionLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if e["v"] != float64(1) || e["id"] == nil || e["decider"] == nil {
			t.Fatalf("the log line is no v1 receipt (docs/codewhale/contract.md §4): %s", sc.Text())
		}
		out = append(out, e)
	}
	return out
}

// A prompt the server stopped waiting for is withdrawn: $/cancelRequest
// for its request, and codewhale/approvalWithdrawn naming the prompt, so
// that no editor leaves a card on screen whose answer counts for nothing.
func TestWithdrawnPromptIsAnnounced(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, map[string]any{"approvalTimeoutSeconds": 1}, nil)
	expect(t, s.authorize(w.call("bash", bash("cargo test"))), "deny", 8, "timeout/prompt")
	prompt := s.lastPrompt()
	s.mu.Lock()
	requestID, _ := s.promptID.Number()
	s.mu.Unlock()
	want := []string{
		fmt.Sprintf(`<- $/cancelRequest {"id":%d}`, requestID),
		`<- codewhale/approvalWithdrawn {"id":"` + prompt.ID + `","reason":"timeout"}`,
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, line := range want {
		for !s.logged(line) {
			if time.Now().After(deadline) {
				t.Fatalf("never sent %s", line)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	s.shutdown()
}

func (s *session) logged(line string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.log, line)
}

// The hardening layer is on unless initializationOptions.hardening is
// false: `rm -fr /` past a deny of `rm -rf /` is denied at layer 5 with no
// prompt, and with the layer off it is Codewhale's ask (answered by
// nobody: a deny at layer 8). codewhale/status says which.
func TestAuthorizeHardeningOption(t *testing.T) {
	for _, hardening := range []bool{true, false} {
		w := newWorld(t)
		w.write(t, w.permissionsPath(), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n")
		var opts map[string]any
		if !hardening {
			opts = map[string]any{"hardening": false}
		}
		s := approvalSession(t, w, opts, func(prompted) any { return nil })
		d := s.authorize(w.call("bash", bash("rm -fr /")))
		switch {
		case hardening && (d.Decision != "deny" || d.Layer != 5 || !strings.Contains(d.Reason, "hardening: ")):
			t.Errorf("hardened: %s at %d: %s", d.Decision, d.Layer, d.Reason)
		case !hardening && (d.Decision != "deny" || d.Layer != 8):
			t.Errorf("exact: %s at %d: %s", d.Decision, d.Layer, d.Reason)
		}
		var st Status
		if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil || st.Hardening != hardening {
			t.Errorf("status hardening %v (want %v): %v", st.Hardening, hardening, err)
		}
	}
}

// A hardening option that is not a boolean is refused, naming it.
func TestInitializeBadHardening(t *testing.T) {
	s := newSession(t, newWorld(t), Options{})
	_, err := s.server.Initialize(s.ctx(), &protocol.InitializeParams{InitializationOptions: []byte(`{"hardening": "off"}`)})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, "hardening") {
		t.Errorf("initialize = %v", err)
	}
}
