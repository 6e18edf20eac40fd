package rpc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
)

// A client that declared no way to show a prompt (Helix 25.07: neither
// initializationOptions.approvals nor window.showMessage with action
// items) serves no approval socket, so another agent's hook finds no
// editor at once and takes the next step; it is told so once, and
// codewhale/status says why. Its own agent's ask is denied at once,
// saying the editor cannot show prompts, and no prompt is sent.
func TestClientThatCannotPrompt(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initializeWith(protocol.ClientCapabilities{}, map[string]any{"decisionLog": false})
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.Approvals.Served || st.Approvals.Prompt != "none" || !strings.Contains(st.Approvals.Reason, "window.showMessage.messageActionItem") {
		t.Errorf("status.approvals = %+v", st.Approvals)
	}
	// initialized was handled before status: had it listened, the socket
	// would be there now.
	if _, err := agentAsks(w, "codex", "touch x", time.Now().Add(time.Minute)); !errors.Is(err, remote.ErrNoEditor) {
		t.Errorf("another agent's hook: %v, want no editor", err)
	}
	s.mu.Lock()
	told := 0
	for _, line := range s.log {
		if strings.HasPrefix(line, "<- "+protocol.MethodWindowLogMessage) && strings.Contains(line, "not serving approvals") {
			told++
		}
	}
	s.mu.Unlock()
	if told != 1 {
		t.Errorf("told %d times that approvals are not served, want once", told)
	}
	d := s.authorize(w.call("bash", bash("touch x")))
	if d.Decision != "deny" || d.Layer != 8 || !strings.Contains(d.Reason, "no approval prompt could be shown, so nobody was asked") || !strings.Contains(d.Reason, "cannot show approval prompts") || !strings.Contains(d.Reason, "docs/editors.md") {
		t.Errorf("the editor's agent's ask: %s at %d: %s", d.Decision, d.Layer, d.Reason)
	}
	if n := s.promptCount(); n != 0 {
		t.Errorf("%d prompts sent to a client that cannot show them", n)
	}
	s.shutdown()
}

// A client that declared window/showMessageRequest with actions is given
// prompts, and serves its folder's approval socket.
func TestClientWithMessageActionsIsServed(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initializeWith(editor, map[string]any{"decisionLog": false})
	waitServingAt(t, w.ws)
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Approvals.Served || st.Approvals.Prompt != protocol.MethodWindowShowMessageRequest || st.Approvals.Reason != "" {
		t.Errorf("status.approvals = %+v", st.Approvals)
	}
	s.shutdown()
}
