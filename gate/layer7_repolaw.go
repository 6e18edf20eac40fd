package gate

import "github.com/codewhale-ls/codewhale-ls/gate/repolaw"

// repoLaw is layer 7: protected paths of .codewhale/constitution.json. Only
// file writes are covered; shell commands writing the same paths are not.
// Another agent's call that touches an agent's controls is held for a
// human here too (agentFiles).
func (p *plan) repoLaw() (Decision, bool) {
	hold := p.snap.Law.Check(p.req.Workspace, p.semantic, p.input)
	out := repolaw.Effect(hold, p.s.posture, p.s.autoApprove, p.req.Tool)
	switch out.Kind {
	case repolaw.Blocked:
		rule := hold.Invariant
		p.need, p.force = false, false
		return p.deny(LayerRepoLaw, out.Reason, &rule), true
	case repolaw.ForcePrompt:
		rule := hold.Invariant
		p.requireApproval(out.Reason, &rule, true)
		p.trace(LayerRepoLaw, EffectAsk, out.Reason)
	default:
		if guard := p.agentFiles(); guard != "" {
			p.requireApproval(guard, nil, true)
			p.trace(LayerRepoLaw, EffectAsk, guard)
		} else if len(p.snap.Law.Rules) == 0 {
			p.trace(LayerRepoLaw, EffectNone, "no enforced invariants")
		} else {
			p.trace(LayerRepoLaw, EffectNone, "no protected path matched")
		}
	}
	return Decision{}, false
}
