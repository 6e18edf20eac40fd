package explanation

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// One line per layer, the deciding one marked, every quoted text through
// show; the later layers that did not run are named for a decision that
// is not a deny.
func TestWriteMarksTheDecidingLayer(t *testing.T) {
	rule := "cargo test"
	d := gate.Decision{
		Decision: gate.Allow, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Reason: "allowed\u202e",
		Trace: []gate.TraceEntry{
			{Layer: gate.LayerPosture, Name: "posture", Effect: gate.EffectNone, Detail: "posture ask"},
			{Layer: gate.LayerPermissions, Name: "permissions", Effect: gate.EffectAllow, Detail: "rule cargo test"},
		},
	}
	var b strings.Builder
	Write(&b, "exec_shell", d, strings.ToUpper)
	want := `   1 posture      NONE    POSTURE ASK
   2 admission    -       not reached
   3 hooks        -       not reached
   4 baseline     -       not reached
=> 5 permissions  ALLOW   RULE CARGO TEST
   6 auto-review  -       not reached
   7 repo-law     -       not reached
   8 approval     -       not reached
   9 sandbox      -       not reached
decision: ALLOW by layer 5 (PERMISSIONS) [rule: CARGO TEST]: ALLOWED` + "\u202e" + `
later layers that could still tighten: 6 auto-review, 7 repo-law, 8 approval, 9 sandbox
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A decision recorded without its layers (a log line written before
// receipts) says so, and names no later layer as still able to tighten.
func TestWriteWithoutTrace(t *testing.T) {
	var b strings.Builder
	Write(&b, "read_file", gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Reason: "ok"}, nil)
	if got := b.String(); got != "   (no layer's judgement was recorded)\ndecision: allow by layer 8 (approval): ok\n" {
		t.Errorf("got %q", got)
	}
}
