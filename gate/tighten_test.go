package gate

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/tool"
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
		mode    tool.Mode
		posture *tool.Posture
		refused string // what the reason names; "" = not refused
	}{
		{"full-access over unset", unset, tool.Agent, postureP(tool.FullAccess), "posture full-access"},
		{"auto-review over unset", unset, tool.Agent, postureP(tool.AutoReview), "posture auto-review"},
		{"yolo over unset", unset, tool.Yolo, nil, "mode yolo"},
		{"yolo over a locked posture", auto, tool.Yolo, nil, "mode yolo"},
		{"full-access over auto", auto, tool.Agent, postureP(tool.FullAccess), "posture full-access"},
		{"ask over never", never, tool.Agent, postureP(tool.Ask), "posture ask"},
		{"plan over never", never, tool.Plan, nil, "mode plan"},
		{"same posture", unset, tool.Agent, postureP(tool.Ask), ""},
		{"never over unset", unset, tool.Agent, postureP(tool.Never), ""},
		{"ask over auto", auto, tool.Agent, postureP(tool.Ask), ""},
		{"plan over unset", unset, tool.Plan, nil, ""},
		{"operate over unset", unset, tool.Operate, nil, ""},
		{"nothing requested", auto, tool.Agent, nil, ""},
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
	req := withPosture(fx.call("bash", map[string]any{"command": "rm -rf ~/.ssh"}), tool.FullAccess)
	if d := fx.decide(t, req, Deps{}); d.Posture != "full-access" || d.Layer == LayerPosture {
		t.Fatalf("posture %s, layer %d: %q", d.Posture, d.Layer, d.Reason)
	}
}
