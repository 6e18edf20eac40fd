package gate

import (
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// permissions is layer 5: the typed rules of permissions.toml. After it,
// layers may only tighten.
func (p *plan) permissions() (Decision, bool) {
	v := execpolicy.Evaluate(p.snap.Engine(), p.semantic, p.input, p.req.Workspace, p.s.posture, p.patchTargets)
	if v.Result != nil {
		for _, c := range v.Result.Changes {
			p.changed(c)
		}
	}
	rule := v.RuleLabel()
	if rule != nil {
		p.ruleAt, p.ruleAtLabel = ruleLocation(p.snap, v.Result), *rule
	}
	switch v.Kind {
	case execpolicy.BlockCall:
		p.need, p.force = false, false
		return p.deny(LayerPermissions, v.Reason, rule), true
	case execpolicy.PromptCall:
		if p.s.autoApprove {
			p.trace(LayerPermissions, EffectNone, fmt.Sprintf("%s (ignored: %s auto-approves)", v.Reason, postureOrMode(p.s.authority)))
			break
		}
		p.requireApproval(v.Reason, rule, true)
		p.trace(LayerPermissions, EffectAsk, v.Reason)
	case execpolicy.AllowCall:
		if p.clearApproval(LayerPermissions, rule) {
			p.trace(LayerPermissions, EffectAllow, fmt.Sprintf("typed allow rule '%s'", v.Rule))
		} else {
			p.trace(LayerPermissions, EffectNone, fmt.Sprintf("typed allow rule '%s' cannot lift a hook ask or a forced hold (a call only a person may allow)", v.Rule))
		}
	default:
		p.trace(LayerPermissions, EffectNone, "no typed rule matched")
	}
	return Decision{}, false
}
