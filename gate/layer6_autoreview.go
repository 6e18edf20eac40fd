package gate

import (
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/autoreview"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// autoReview is layer 6: configured block/allow rules and the built-in
// safety floor. Where interactive Codewhale would consult its model
// reviewer, the sidecar does what Codewhale's headless path does: block,
// with the reviewer's question as the reason.
func (p *plan) autoReview() (Decision, bool) {
	bounded := false
	if tool.IsFileWrite(p.semantic) {
		bounded = p.writeBounded()
	}
	v := autoreview.Decide(p.snap.AutoReview, p.call, p.s.posture, p.req.Origin, bounded)
	p.class = &v.Classification
	eff := autoreview.Plan(v, p.s.posture, p.req.Tool)
	var rule *string
	if v.RuleID != "" {
		id := v.RuleID
		rule = &id
	}
	// Risk destructive only means not shown harmless (cargo test is):
	// said in those words, its name in brackets (docs/glossary.md, "Risk").
	detail := func() string {
		risk := "shown harmless"
		if v.Risk == autoreview.Destructive {
			risk = "not shown harmless"
		}
		return "action kind " + v.ActionKind.String() + ", " + risk + " (risk " + v.Risk.String() + "), origin " + v.Origin.String()
	}
	switch eff.Kind {
	case autoreview.EffectBlock, autoreview.EffectConsultReviewer:
		p.need, p.force = false, false
		return p.deny(LayerAutoReview, eff.Text, rule), true
	case autoreview.EffectForcePrompt:
		p.requireApproval(eff.Text, rule, true)
		p.trace(LayerAutoReview, EffectAsk, fmt.Sprintf("%s (%s)", eff.Text, detail()))
	case autoreview.EffectAllow:
		if p.clearApproval(LayerAutoReview, rule) {
			p.trace(LayerAutoReview, EffectAllow, fmt.Sprintf("auto-review allows: %s (%s)", v.Reason, detail()))
		} else {
			p.trace(LayerAutoReview, EffectNone, fmt.Sprintf("auto-review allows, but cannot lift a hook ask or a forced hold, a call only a person may allow (%s)", detail()))
		}
	default:
		p.trace(LayerAutoReview, EffectNone, detail())
	}
	return Decision{}, false
}
