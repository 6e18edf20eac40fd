package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

var failClosedCalls = []struct {
	name  string
	input map[string]any
}{
	{"read", map[string]any{"path": "README.md"}},
	{"bash", map[string]any{"command": "ls"}},
	{"write", map[string]any{"path": "src/x.rs", "content": "x"}},
	{"request_user_input", map[string]any{}},
}

// A nil snapshot denies, never allows.
func TestNilSnapshotDenies(t *testing.T) {
	for _, c := range failClosedCalls {
		for _, p := range []session.Posture{session.Ask, session.FullAccess} {
			id := "c1"
			req := Request{Tool: c.name, Input: c.input, Workspace: "/ws", Posture: postureP(p), CallID: &id}
			d := Decide(context.Background(), nil, req, Deps{})
			checkTrace(t, d)
			if d.Decision != Deny || d.Layer != LayerPosture || !strings.Contains(d.Reason, "no policy snapshot") {
				t.Errorf("%s: %s layer %d %q", c.name, d.Decision, d.Layer, d.Reason)
			}
			if d.CallID == nil || *d.CallID != "c1" || d.Sandbox.Type != "read-only" {
				t.Errorf("%s: call id %v sandbox %+v", c.name, d.CallID, d.Sandbox)
			}
		}
	}
}

// A panicking hooks.Runner is a lost executor: a strict gate denies (§3.5);
// Decide itself never panics.
func TestPanickingRunnerDenies(t *testing.T) {
	fx := load(t, files{git: true, config: hookConfig("gate", true)}).noFatal(t)
	for _, c := range failClosedCalls {
		d := fx.decide(t, withPosture(fx.call(c.name, c.input), session.FullAccess), Deps{Hooks: &fakeRunner{panicky: true}})
		checkTrace(t, d)
		if d.Decision != Deny || d.Layer != LayerHooks || !strings.Contains(d.Reason, "gate: the hook executor was lost") {
			t.Errorf("%s: %s layer %d %q", c.name, d.Decision, d.Layer, d.Reason)
		}
	}
	// With only lenient hooks Codewhale proceeds (§3.5 "with no strict gates
	// the call proceeds"): the decision is what the other layers make of it.
	lenient := load(t, files{git: true, config: hookConfig("audit", false)}).noFatal(t)
	d := lenient.decide(t, lenient.call("bash", map[string]any{"command": "cargo test"}), Deps{Hooks: &fakeRunner{panicky: true}})
	checkTrace(t, d)
	if d.Decision != Ask {
		t.Errorf("lenient panicking hook: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}

// panicSessions blows up inside layer 8.
type panicSessions struct{}

func (panicSessions) Approved(string) bool { panic("sessions exploded") }
func (panicSessions) Denied(string) bool   { panic("sessions exploded") }

// An internal panic anywhere in the layers is a deny that says so.
func TestInternalPanicDenies(t *testing.T) {
	fx := load(t, files{git: true}).noFatal(t)
	d := fx.decide(t, fx.call("bash", map[string]any{"command": "cargo test"}), Deps{Sessions: panicSessions{}})
	checkTrace(t, d)
	if d.Decision != Deny || d.Layer != LayerPosture || !strings.Contains(d.Reason, "internal error") || !strings.Contains(d.Reason, "sessions exploded") {
		t.Errorf("%s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}

// A snapshot Codewhale would refuse to start with denies every call at layer 1.
func TestFatalSnapshotDeniesEverything(t *testing.T) {
	broken := []files{
		{config: "approval_policy = \"full-access\"\n"},
		{config: "sandbox_mode = \"none\"\n"},
		{config: "approval_policy = [\n"},
		{permissions: "[[rules]]\ntool = \"exec_shell\"\naction = \"Deny\"\n"},
		{config: "[[auto_review.allow]]\nid = \"x\"\n"},
	}
	for i, f := range broken {
		fx := load(t, f)
		if len(fx.snap.Fatal()) == 0 {
			t.Fatalf("case %d: the snapshot loads", i)
		}
		for _, c := range failClosedCalls {
			for _, p := range []session.Posture{session.Ask, session.FullAccess, session.Never} {
				req := withPosture(fx.call(c.name, c.input), p)
				d := fx.decide(t, req, Deps{})
				checkTrace(t, d)
				if d.Decision != Deny || d.Layer != LayerPosture || !strings.HasPrefix(d.Reason, "Codewhale refuses to start: ") {
					t.Errorf("case %d %s %s: %s layer %d %q", i, c.name, p, d.Decision, d.Layer, d.Reason)
				}
				if !strings.Contains(d.Reason, fx.snap.Fatal()[0]) {
					t.Errorf("case %d: reason %q does not carry %q", i, d.Reason, fx.snap.Fatal()[0])
				}
				if len(d.Trace) != 1 {
					t.Errorf("case %d: later layers ran: %+v", i, d.Trace)
				}
			}
		}
	}
	// A hand-made snapshot with Fatal set behaves the same.
	fx := load(t, files{}).noFatal(t)
	snap := &config.Snapshot{Paths: fx.snap.Paths, Policy: fx.snap.Policy}
	snap.Policy.Fatal = []string{"first reason", "second reason"}
	d := Decide(context.Background(), snap, fx.call("read", map[string]any{"path": "a"}), Deps{})
	if d.Decision != Deny || d.Reason != "Codewhale refuses to start: first reason; second reason" {
		t.Errorf("%s %q", d.Decision, d.Reason)
	}
}
