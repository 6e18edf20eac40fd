package gate

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	shellwords "github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/hardening"
)

// harden is codewhale-ls's tighten-only hardening layer (docs/hardening.md),
// on unless deps.Exact. After the layers that judge a call and before a
// person is asked, it looks again at a shell call that would run: each
// command the line runs that its written form hides from the engine
// (gate/hardening) is judged with the user's own rules by the release's
// engine. A hidden command a rule denies is denied at layer 5, naming the
// rule; one a rule asks about is asked as layer 5 asks; where the line
// runs code nobody can read, and the user has shell rules it could be
// hiding from, a person decides (a forced hold for layer 8). It never
// lifts a deny or an ask, and traces only when it acts.
func (p *plan) harden(deps Deps) (Decision, bool) {
	if deps.Exact || p.semantic != execpolicy.DefaultTool {
		return Decision{}, false
	}
	line, ok := p.input["command"].(string)
	if !ok {
		return Decision{}, false
	}
	findings := hardening.Inspect(line)
	if len(findings) == 0 {
		return Decision{}, false
	}
	if len(findings) > 1 || len(findings[0].Open) == 0 {
		// A lone command with words built at run time is no compound
		// command: a session grant may cover it as Codewhale's does.
		p.hidden = findings
	}
	release := p.snap.Release.Name()
	// refused is the first hidden command the release refuses without a
	// rule (0.10.1's hold of words only known when it runs, as of a bare
	// `sh` fed by a pipe): a person decides, as for code nobody can read,
	// unless a rule denies or asks about another, which is then named.
	var refused *hardening.Finding
	var refusal string
	for _, f := range findings {
		if f.Unseeable != "" {
			continue
		}
		v := execpolicy.Evaluate(p.snap.Engine(), execpolicy.DefaultTool, map[string]any{"command": f.Command}, p.req.Workspace, p.s.posture, nil)
		rule := v.RuleLabel()
		if rule != nil && (v.Kind == execpolicy.BlockCall || v.Kind == execpolicy.PromptCall) {
			p.ruleAt, p.ruleAtLabel = ruleLocation(p.snap, v.Result), *rule
		}
		switch v.Kind {
		case execpolicy.BlockCall:
			if rule == nil {
				if refused == nil {
					refused, refusal = &f, v.Reason
				}
				continue
			}
			reason := fmt.Sprintf(hardeningMark+"Codewhale %s would not see this: %s, which the rule '%s' denies (%s)", release, f.Why, v.Rule, v.Reason)
			p.need, p.force = false, false
			p.traceInPlace(LayerPermissions, EffectDeny, reason)
			return p.finish(Deny, LayerPermissions, reason, rule), true
		case execpolicy.PromptCall:
			if p.s.autoApprove {
				continue // as layer 5 ignores an ask rule the posture auto-approves
			}
			reason := fmt.Sprintf(hardeningMark+"Codewhale %s would not see this: %s, which the rule '%s' asks about", release, f.Why, v.Rule)
			if rule == nil {
				reason = fmt.Sprintf(hardeningMark+"Codewhale %s would not see this: %s, which Codewhale %s asks about itself: %s", release, f.Why, release, v.Reason)
			}
			p.requireApproval(reason, rule, true)
			p.traceInPlace(LayerPermissions, EffectAsk, reason)
			return Decision{}, false
		}
	}
	if refused != nil {
		reason := fmt.Sprintf(hardeningMark+"a person must decide: %s, which Codewhale %s refuses itself, under no rule: %s", refused.Why, release, refusal)
		p.requireApproval(reason, nil, true)
		p.traceInPlace(LayerPermissions, EffectTighten, reason)
		return Decision{}, false
	}
	if !shellRulesHold(p.snap.Engine()) {
		return Decision{}, false
	}
	if p.holdOpen(findings) {
		return Decision{}, false
	}
	for _, f := range findings {
		if f.Unseeable != "" {
			reason := fmt.Sprintf(hardeningMark+"a person must decide: %s, so no rule can be checked against it", f.Unseeable)
			p.requireApproval(reason, nil, true)
			p.traceInPlace(LayerPermissions, EffectTighten, reason)
			return Decision{}, false
		}
	}
	return Decision{}, false
}

// shellRulesHold says whether the user has a deny or ask rule for shell
// commands: only then can a line hide a command from one.
func shellRulesHold(e *execpolicy.Engine) bool {
	return e != nil && e.HasShellHolds()
}

// holdOpen puts to a person a command whose words from some point on are
// only known when the line runs, when it could become a command a deny
// or ask rule matches (`git $(…)` and the rule `git push`): the engine
// judges each command a rule's words make of it (hardening.Instantiate).
func (p *plan) holdOpen(findings []hardening.Finding) bool {
	holds := p.snap.Engine().ShellHoldCommands()
	for _, f := range findings {
		if len(f.Open) == 0 {
			continue
		}
		for _, h := range holds {
			made, ok := f.Instantiate(shellwords.Words(h))
			if !ok {
				continue
			}
			v := execpolicy.Evaluate(p.snap.Engine(), execpolicy.DefaultTool, map[string]any{"command": made}, p.req.Workspace, p.s.posture, nil)
			if v.Kind != execpolicy.BlockCall && v.Kind != execpolicy.PromptCall {
				continue
			}
			verb := "denies"
			if v.Kind == execpolicy.PromptCall {
				verb = "asks about"
			}
			reason := fmt.Sprintf(hardeningMark+"a person must decide: %s, so it could run `%s`, which the rule '%s' %s", f.Why, made, v.Rule, verb)
			p.requireApproval(reason, v.RuleLabel(), true)
			p.traceInPlace(LayerPermissions, EffectTighten, reason)
			return true
		}
	}
	return false
}

// hardeningMark starts every reason the hardening layer gives, so its
// trace entries say which layer acted.
const hardeningMark = "hardening: "

// HardeningActed reports whether the hardening layer changed d: a trace
// entry in its words, alone or joined to the entry of the layer it acts
// as (traceInPlace).
func (d Decision) HardeningActed() bool {
	for _, t := range d.Trace {
		if strings.HasPrefix(t.Detail, hardeningMark) || strings.Contains(t.Detail, "; "+hardeningMark) {
			return true
		}
	}
	return false
}
