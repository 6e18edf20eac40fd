package rpc

import (
	"strings"
	"testing"
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
