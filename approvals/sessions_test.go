package approvals

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// TestSessionsKeys follows docs/codewhale/pipeline.md §8.2: approvals by
// the keys a grant added (which ones is the gate's, per release), denials
// by the exact key; each session reads only its own.
func TestSessionsKeys(t *testing.T) {
	s := NewSessions()
	claude := Session{Agent: "claude-code", ID: "3b068eb0"}
	if s.Approved(claude, "bash") || s.Approved(claude, "shell:cargo test") || s.Denied(claude, "shell:exec_shell:1") {
		t.Fatal("a new session has answers")
	}
	s.Approve(claude, "bash", "shell:cargo test")
	for key, want := range map[string]bool{"bash": true, "shell:cargo test": true, "write": false, "shell:git push": false} {
		if got := s.Of(claude).Approved(key); got != want {
			t.Errorf("Approved(%q) = %v, want %v", key, got, want)
		}
	}
	s.Deny(claude, "shell:exec_shell:1")
	if !s.Of(claude).Denied("shell:exec_shell:1") || s.Denied(claude, "shell:exec_shell:2") {
		t.Error("denials are not by exact key")
	}
	for _, other := range []Session{{}, {Agent: "codex", ID: "3b068eb0"}, {Agent: "claude-code", ID: "another"}, {Agent: "claude-code"}} {
		if s.Of(other).Approved("shell:cargo test") || s.Of(other).Denied("shell:exec_shell:1") {
			t.Errorf("%+v reads %+v's answers", other, claude)
		}
	}
}

// TestASessionGrantIsTheAskingAgentSessions: "approve for session"
// answered to one Claude Code session lets that session run the same
// command unasked, and neither Codex, another Claude Code session, a
// Claude Code event naming no session nor the editor's own agent; a deny
// is remembered the same way. The decision log names each agent.
func TestASessionGrantIsTheAskingAgentSessions(t *testing.T) {
	snap, req := asking(t)
	logPath := filepath.Join(t.TempDir(), "decisions.jsonl")
	asker := &scripted{reply: gate.ChoiceSession}
	a, _ := deciding(t, asker, Config{Log: OpenRecorder(logPath, RecorderOptions{})}, snap)
	hook := func(agent, session string) remote.Request {
		return remote.Request{Agent: agent, Session: session, Workspace: req.Workspace, Call: req, Deadline: time.Now().Add(time.Minute)}
	}
	prompted := func() int {
		asker.mu.Lock()
		defer asker.mu.Unlock()
		return len(asker.seen)
	}
	decide := func(r remote.Request, wantPrompt bool) {
		t.Helper()
		before := prompted()
		d := a.AuthorizeHook(context.Background(), r)
		if d.Decision != gate.Allow || d.Approval == nil {
			t.Fatalf("%s/%q: %s: %s", r.Agent, r.Session, d.Decision, d.Reason)
		}
		if asked := prompted() > before; asked != wantPrompt {
			t.Errorf("%s/%q: prompted %v, want %v (%+v)", r.Agent, r.Session, asked, wantPrompt, d.Approval)
		}
	}
	decide(hook("claude-code", "s1"), true)
	decide(hook("claude-code", "s1"), false) // its grant
	decide(hook("codex", "s1"), true)        // another agent, even with the same id
	decide(hook("claude-code", "s2"), true)  // another session of the same agent
	decide(hook("claude-code", ""), true)    // an event naming no session
	decide(hook("claude-code", ""), false)   // is one session of its agent
	asker.mu.Lock()
	last := asker.seen[len(asker.seen)-1]
	asker.mu.Unlock()
	if last.Agent != "claude-code" {
		t.Errorf("the card names %q, want claude-code", last.Agent)
	}
	if d := a.Authorize(context.Background(), req, ""); d.Approval == nil || d.Approval.Source != "prompt" {
		t.Errorf("the editor's own agent used a hook's grant: %+v", d.Approval)
	}

	asker.mu.Lock()
	asker.reply = gate.ChoiceDeny
	asker.mu.Unlock()
	denied := hook("gemini-cli", "g1")
	if d := a.AuthorizeHook(context.Background(), denied); d.Decision != gate.Deny {
		t.Fatalf("deny answered: %s", d.Decision)
	}
	asker.mu.Lock()
	asker.reply = gate.ChoiceOnce
	asker.mu.Unlock()
	before := prompted()
	if d := a.AuthorizeHook(context.Background(), denied); d.Decision != gate.Deny || prompted() != before {
		t.Errorf("the remembered deny did not decide its own session: %s, prompted %v", d.Decision, prompted() != before)
	}
	if d := a.AuthorizeHook(context.Background(), hook("gemini-cli", "g2")); d.Decision != gate.Allow || prompted() != before+1 {
		t.Errorf("another session met the remembered deny: %s", d.Decision)
	}

	a.Close()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, agent := range []string{"claude-code", "codex", "gemini-cli"} {
		if !strings.Contains(log, `"agent":"`+agent+`"`) {
			t.Errorf("the decision log does not name %s:\n%s", agent, log)
		}
	}
}

// TestAHookRequestNamingNoAgentIsRefused: it would read the editor's own
// agent's grants.
func TestAHookRequestNamingNoAgentIsRefused(t *testing.T) {
	snap, req := asking(t)
	asker := &scripted{reply: gate.ChoiceOnce}
	a, _ := deciding(t, asker, Config{}, snap)
	d := a.AuthorizeHook(context.Background(), remote.Request{Workspace: req.Workspace, Call: req, Deadline: time.Now().Add(time.Minute)})
	if d.Decision != gate.Deny || !strings.Contains(d.Reason, "names no agent") || len(asker.seen) != 0 {
		t.Errorf("%s: %s (prompts %d)", d.Decision, d.Reason, len(asker.seen))
	}
}

// TestAHookIsToldWhereThePersonWasAsked: another agent's model reads the
// deny, not the card, so its reason ends by saying who showed the card;
// the editor's own agent gets Codewhale's words alone.
func TestAHookIsToldWhereThePersonWasAsked(t *testing.T) {
	for _, shownBy := range []string{"", "the approval console"} {
		snap, req := asking(t)
		a, _ := deciding(t, &scripted{reply: gate.ChoiceDeny}, Config{ShownBy: shownBy}, snap)
		want := " Asked in the editor."
		if shownBy != "" {
			want = " Asked in " + shownBy + "."
		}
		d := a.AuthorizeHook(context.Background(), remote.Request{Agent: "codex", Session: "c1", Workspace: req.Workspace, Call: req, Deadline: time.Now().Add(time.Minute)})
		if d.Decision != gate.Deny || !strings.Contains(d.Reason, "denied by user") || !strings.HasSuffix(d.Reason, want) {
			t.Errorf("a hook's call denied on the card shown by %q: %s, %q", shownBy, d.Decision, d.Reason)
		}
		if d := a.Authorize(context.Background(), req, ""); d.Decision != gate.Deny || strings.Contains(d.Reason, "Asked in") {
			t.Errorf("the editor's own agent, denied on its card: %s, %q", d.Decision, d.Reason)
		}
	}
}

// TestAuthorizeHookJudgesTheCallOutsideTheSandboxAsAsked: whatever the
// request says, the agent runs the call itself, and the hook asked for a
// person: an allow with nobody asked is refused.
func TestAuthorizeHookJudgesTheCallOutsideTheSandboxAsAsked(t *testing.T) {
	snap, req := asking(t)
	a, _ := deciding(t, &scripted{reply: gate.ChoiceOnce}, Config{}, snap)
	read := req
	read.Tool, read.Input = "read_file", map[string]any{"path": "README.md"}
	d := a.AuthorizeHook(context.Background(), remote.Request{Agent: "codex", Session: "c1", Workspace: req.Workspace, Call: read, Deadline: time.Now().Add(time.Minute)})
	if d.Decision != gate.Deny || !strings.Contains(d.Reason, "the two disagree") {
		t.Errorf("an allow with nobody asked: %s: %s", d.Decision, d.Reason)
	}
}
