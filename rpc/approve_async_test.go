package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// asyncSession is a client that declared approvalsAsync: prompts arrive
// as notifications and answer(p) is sent as codewhale/answerApproval's
// params (nil: no answer).
func asyncSession(t *testing.T, w *world, opts map[string]any, answer func(p prompted) any) (*session, chan error) {
	t.Helper()
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	answered := make(chan error, 8)
	s.approve = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		var p prompted
		if method != "codewhale/approvalRequested" || json.Unmarshal(params, &p) != nil {
			answered <- fmt.Errorf("unexpected %s", method)
			return nil, nil
		}
		if a := answer(p); a != nil {
			var res json.RawMessage
			_, err := s.conn.Call(s.ctx(), "codewhale/answerApproval", a, &res)
			answered <- err
		}
		return nil, nil
	}
	all := map[string]any{"approvals": "codewhale", "approvalsAsync": true, "decisionLog": false}
	for k, v := range opts {
		all[k] = v
	}
	s.initializeWith(editor, all)
	return s, answered
}

func TestAsyncApprovals(t *testing.T) {
	for _, c := range []struct {
		name     string
		answer   func(p prompted) any
		decision string
		approval string
		refused  string // the answer request's error
	}{
		{"once", func(p prompted) any { return map[string]any{"id": p.ID, "choice": "once"} }, "allow", "once/prompt", ""},
		{"deny", func(p prompted) any { return map[string]any{"id": p.ID, "choice": "deny"} }, "deny", "deny/prompt", ""},
		{"dismissed", func(p prompted) any { return map[string]any{"id": p.ID, "choice": nil} }, "deny", "dismissed/prompt", ""},
		{"not offered", func(p prompted) any { return map[string]any{"id": p.ID, "choice": "yolo"} }, "deny", "dismissed/prompt", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			s, answered := asyncSession(t, w, nil, c.answer)
			expect(t, s.authorize(w.call("bash", bash("cargo test"))), c.decision, 8, c.approval)
			if err := <-answered; err != nil {
				t.Errorf("answer refused: %v", err)
			}
			s.shutdown()
		})
	}
}

// An answer counts once, for the prompt it names, in the exact shape; a
// late answer to a withdrawn prompt is refused and changes nothing.
func TestAsyncAnswerIsStrict(t *testing.T) {
	w := newWorld(t)
	s, _ := asyncSession(t, w, map[string]any{"approvalTimeoutSeconds": 1}, func(prompted) any { return nil })
	expect(t, s.authorize(w.call("bash", bash("cargo test"))), "deny", 8, "timeout/prompt")
	id := s.lastPrompt().ID
	deadline := time.Now().Add(5 * time.Second)
	for !s.logged(`<- codewhale/approvalWithdrawn {"id":"` + id + `","reason":"timeout"}`) {
		if time.Now().After(deadline) {
			t.Fatal("the timed-out prompt was never withdrawn")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, bad := range []struct {
		params any
		want   string
	}{
		{map[string]any{"id": id, "choice": "once"}, "is waiting"},
		{map[string]any{"id": id, "choice": "once", "approved": true}, "unexpected field"},
		{map[string]any{"id": id}, "need both"},
		{map[string]any{"id": nil, "choice": "once"}, "not null"},
		{map[string]any{"id": id, "choice": 1}, "must be a string"},
		{[]string{id, "once"}, "params must be"},
	} {
		var res json.RawMessage
		_, err := s.conn.Call(s.ctx(), "codewhale/answerApproval", bad.params, &res)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("answer %v: %v, want an error with %q", bad.params, err, bad.want)
		}
	}
	s.shutdown()
}
