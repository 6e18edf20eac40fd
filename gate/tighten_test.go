package gate

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// A request judged by RequestMayOnlyTighten may narrow the posture the
// files chose, never widen it; without the option (the command line) the
// request's posture and mode stay the invoker's choice.
func TestRequestMayOnlyTighten(t *testing.T) {
	unset := load(t, files{}).noFatal(t)                                      // Ask, from nothing
	auto := load(t, files{config: "approval_policy = \"auto\"\n"}).noFatal(t) // Auto-Review, locked
	never := load(t, files{config: "approval_policy = \"never\"\n"}).noFatal(t)
	rm := map[string]any{"command": "rm -rf ~/.ssh"}
	cases := []struct {
		name    string
		fx      fixture
		mode    session.Mode
		posture *session.Posture
		refused string // what the reason names; "" = not refused
	}{
		{"full-access over unset", unset, session.Agent, postureP(session.FullAccess), "posture full-access"},
		{"auto-review over unset", unset, session.Agent, postureP(session.AutoReview), "posture auto-review"},
		{"yolo over unset", unset, session.Yolo, nil, "mode yolo"},
		{"yolo over a locked posture", auto, session.Yolo, nil, "mode yolo"},
		{"full-access over auto", auto, session.Agent, postureP(session.FullAccess), "posture full-access"},
		{"ask over never", never, session.Agent, postureP(session.Ask), "posture ask"},
		{"plan over never", never, session.Plan, nil, "mode plan"},
		{"same posture", unset, session.Agent, postureP(session.Ask), ""},
		{"never over unset", unset, session.Agent, postureP(session.Never), ""},
		{"ask over auto", auto, session.Agent, postureP(session.Ask), ""},
		{"plan over unset", unset, session.Plan, nil, ""},
		{"operate over unset", unset, session.Operate, nil, ""},
		{"nothing requested", auto, session.Agent, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := c.fx.call("bash", rm)
			req.Mode, req.Posture = c.mode, c.posture
			d := c.fx.decide(t, req, Deps{RequestMayOnlyTighten: true})
			checkTrace(t, d)
			refused := d.Decision == Deny && d.Layer == LayerPosture && strings.Contains(d.Reason, "looser than the posture the user chose")
			if (c.refused != "") != refused {
				t.Fatalf("refused = %v, want %v: %s at layer %d: %q", refused, c.refused != "", d.Decision, d.Layer, d.Reason)
			}
			if refused {
				chosen := c.fx.decide(t, c.fx.call("bash", rm), Deps{}).Posture
				if !strings.Contains(d.Reason, c.refused) || !strings.Contains(d.Reason, "posture the user chose, "+chosen) {
					t.Fatalf("the reason should name %q and the chosen posture %s: %q", c.refused, chosen, d.Reason)
				}
			}
		})
	}
}

// The command line asks what would happen under a posture: it is honoured.
func TestRequestPostureHonouredWithoutTheOption(t *testing.T) {
	fx := load(t, files{}).noFatal(t)
	req := withPosture(fx.call("bash", map[string]any{"command": "rm -rf ~/.ssh"}), session.FullAccess)
	if d := fx.decide(t, req, Deps{}); d.Posture != "full-access" || d.Layer == LayerPosture {
		t.Fatalf("posture %s, layer %d: %q", d.Posture, d.Layer, d.Reason)
	}
}

// A mode changes what hooks see: a hook the user wrote for Agent mode does
// not fire in Operate or Plan. With hooks configured, a request may not
// pick another mode; without hooks, Plan tightens and Operate changes
// nothing, so both stand.
func TestRequestModeMayNotDodgeHooks(t *testing.T) {
	guarded := load(t, files{config: "approval_policy = \"auto\"\n" + hookConfig("agent-guard", true) +
		"condition = { type = \"mode\", mode = \"agent\" }\n"}).noFatal(t)
	runner := &fakeRunner{script: map[string]hooks.Result{"agent-guard": exit(2, `{"reason":"no secrets"}`)}}
	cat := map[string]any{"command": "cat secrets.txt"}
	for _, mode := range []session.Mode{session.Operate, session.Plan} {
		req := guarded.call("bash", cat)
		req.Mode = mode
		// What the agent would gain: without the rule, the guard is skipped.
		if d := guarded.decide(t, req, Deps{Hooks: runner}); d.Decision == Deny && d.Layer == LayerHooks {
			t.Fatalf("mode %s: the agent-mode hook fired, so this test shows nothing", mode)
		}
		d := guarded.decide(t, req, Deps{Hooks: runner, RequestMayOnlyTighten: true})
		checkTrace(t, d)
		if d.Decision != Deny || d.Layer != LayerPosture || !strings.Contains(d.Reason, "mode "+mode.String()+" instead of agent") {
			t.Errorf("mode %s: %s at layer %d: %q", mode, d.Decision, d.Layer, d.Reason)
		}
	}
	if d := guarded.decide(t, guarded.call("bash", cat), Deps{Hooks: runner, RequestMayOnlyTighten: true}); d.Layer != LayerHooks {
		t.Errorf("the session's own mode: %s at layer %d: %q", d.Decision, d.Layer, d.Reason)
	}

	plain := load(t, files{}).noFatal(t)
	for _, mode := range []session.Mode{session.Operate, session.Plan} {
		req := plain.call("bash", cat)
		req.Mode = mode
		if d := plain.decide(t, req, Deps{RequestMayOnlyTighten: true}); d.Layer == LayerPosture {
			t.Errorf("mode %s without hooks refused: %q", mode, d.Reason)
		}
	}
}
