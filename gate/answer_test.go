package gate

import (
	"strings"
	"testing"
)

func TestAnswered(t *testing.T) {
	f := load(t, files{git: true})
	ask := Decide(t.Context(), f.snap, Request{Tool: "bash", Input: map[string]any{"command": "cargo test"}, Workspace: f.ws}, Deps{})
	if ask.Decision != Ask || ask.Prompt == nil {
		t.Fatalf("setup: %s at %d, want an approval card", ask.Decision, ask.Layer)
	}
	cases := []struct {
		choice  Choice
		verdict Verdict
		reason  string
	}{
		{ChoiceOnce, Allow, "Approved by the user (once) via p1"},
		{ChoiceSession, Allow, "Approved by the user (for this session) via p1"},
		{ChoiceAlways, Allow, "Approved by the user (always in this repo) via p1"},
		{ChoiceDeny, Deny, "Tool 'bash' denied by user — the call was not approved."},
		{ChoiceTimeout, Deny, "the approval prompt timed out"},
		{ChoiceDismissed, Deny, "the approval prompt was dismissed"},
		{ChoiceDisconnected, Deny, "the editor went away"},
	}
	for _, c := range cases {
		d := Answered(ask, "bash", Answer{Choice: c.choice, By: "via p1"})
		if d.Decision != c.verdict || d.Layer != LayerApproval || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s: %s at %d %q, want %s with %q", c.choice, d.Decision, d.Layer, d.Reason, c.verdict, c.reason)
		}
		if d.Approval == nil || d.Approval.Choice != string(c.choice) || d.Approval.Source != "prompt" {
			t.Errorf("%s: approval %+v", c.choice, d.Approval)
		}
		var layer8, layer9 int
		for _, e := range d.Trace {
			switch e.Layer {
			case LayerApproval:
				layer8++
				if !strings.Contains(e.Detail, "p1") {
					t.Errorf("%s: the trace does not say who answered: %q", c.choice, e.Detail)
				}
			case LayerSandbox:
				layer9++
			}
		}
		if layer8 != 1 || (layer9 == 1) != (c.verdict == Allow) {
			t.Errorf("%s: trace has %d layer-8 and %d layer-9 entries", c.choice, layer8, layer9)
		}
	}
	// The decision is passed by value, but its trace shares a backing
	// array: Answered must not rewrite the caller's trace.
	if last := ask.Trace[len(ask.Trace)-1]; last.Layer != LayerSandbox || last.Effect != EffectNone {
		t.Error("Answered rewrote the trace of the decision it was given")
	}
	for _, e := range ask.Trace {
		if e.Layer == LayerApproval && e.Effect != EffectAsk {
			t.Errorf("Answered rewrote the caller's layer-8 entry: %+v", e)
		}
	}
	deny := Decide(t.Context(), f.snap, Request{Tool: "bash", Input: map[string]any{"command": "cargo test"}, Workspace: f.ws, DisallowedTools: []string{"bash"}}, Deps{})
	if got := Answered(deny, "bash", Answer{Choice: ChoiceOnce}); got.Decision != deny.Decision || got.Approval != nil {
		t.Errorf("an answer overturned a %s of layer %d", deny.Decision, deny.Layer)
	}
}
