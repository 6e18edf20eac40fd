package approvals

import (
	"context"
	"fmt"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// Authorizer decides the calls of an editor-hosted agent: the gate on one
// snapshot, the editor's user where layer 8 needs a human, then the
// answer's effects (session grants, an "always" rule) and the decision
// log. Every decision it returns is final: allow or deny.
type Authorizer struct {
	Broker   *Broker
	Sessions *Sessions
	// Deps are the gate's side effects (hooks); Sessions is set from above.
	Deps gate.Deps
	// Grant appends "always" rules to a permissions.toml (AppendRules).
	Grant func(path string, rules []execpolicy.Rule) (int, error)
	// Granted is told after a grant was written, so the policy is reloaded
	// before the next call without waiting for the file watcher.
	Granted func()
	// Current, when set, is the workspace's snapshot now: a call approved
	// after the posture changed under its prompt is not run (docs/codewhale/pipeline.md
	// §8.1, step 4).
	Current func(workspace string) *config.Snapshot
	// Record, when set, writes every final decision to the decision log;
	// a decision that cannot be recorded does not run.
	Record func(LogEntry) error
}

// Authorize decides req on snap for agent: "" for the editor's own agent,
// else the other agent whose pre-tool hook asked (its prompt and its log
// entry name it). A deadline of ctx sooner than the prompt's own ends the
// prompt, so the answer reaches a caller that stops waiting then.
func (a *Authorizer) Authorize(ctx context.Context, snap *config.Snapshot, req gate.Request, agent string) gate.Decision {
	deps := a.Deps
	deps.Sessions = a.Sessions
	d := gate.Decide(ctx, snap, req, deps)
	if d.Decision == gate.Ask {
		d = a.ask(ctx, snap, req, agent, d)
	}
	if req.AskedForHuman && d.Decision == gate.Allow && d.Approval == nil {
		// The hook asked for a person by its rules; these would let the
		// call through with nobody asked. The looser of two deciders must
		// not win.
		d = blocked(d, fmt.Sprintf("The agent's hook asked for a person to approve this call, but the rules here (Codewhale %s) would allow it with nobody asked: "+
			"the two disagree (another Codewhale release, or the policy files changed between the two reads), so it is denied. "+
			"Make the hook and the editor use the same release (--codewhale-version in the hook's command, the editor's Codewhale version setting), then retry.", snap.Release.Name()))
	}
	if err := ctx.Err(); err != nil && d.Decision != gate.Deny {
		d = blocked(d, "The authorize request was cancelled ("+err.Error()+"); a cancelled call is denied.")
	}
	return a.Final(req, agent, d)
}

// ask settles an ask decision through the broker.
func (a *Authorizer) ask(ctx context.Context, snap *config.Snapshot, req gate.Request, agent string, d gate.Decision) gate.Decision {
	prompt, err := NewPrompt(req, d)
	if err != nil {
		return gate.Answered(d, req.Tool, gate.Answer{Choice: gate.ChoiceDismissed, By: "by codewhale-ls", Why: err.Error()})
	}
	prompt.Agent = agent
	card := d.Prompt
	answer := a.Broker.Ask(ctx, prompt, approvalBound(snap))
	switch answer.Choice {
	case gate.ChoiceSession:
		a.Sessions.Approve(card.SessionGrants...)
	case gate.ChoiceDeny:
		a.Sessions.Deny(card.ExactKey)
	case gate.ChoiceAlways:
		answer.By += a.persist(snap, card.Always)
	}
	final := gate.Answered(d, req.Tool, answer)
	if final.Decision == gate.Allow && a.Current != nil {
		if now := a.Current(req.Workspace); now != nil && now.Policy.Posture != snap.Policy.Posture {
			return blocked(final, fmt.Sprintf("Runtime permission posture changed while this call waited for approval (%s → %s); retry it under the current posture.",
				snap.Policy.Posture.Label(), now.Policy.Posture.Label()))
		}
	}
	return final
}

// approvalBound is the soonest deadline the user's release and
// configuration set for an approval, if any: the card's `[approval]
// timeout_seconds` and the runtime wait `[tools] user_input_timeout_seconds`
// (docs/codewhale/releases/0.10.0.md B.8.1, B.8.2). The editor's prompt is
// both a card and an agent's API call waiting, so whichever is sooner
// denies first.
func approvalBound(snap *config.Snapshot) Bound {
	var bound Bound
	for _, b := range []struct {
		setting string
		get     func() (time.Duration, bool)
	}{
		{"[approval] timeout_seconds", snap.ApprovalTimeout},
		{"[tools] user_input_timeout_seconds", snap.RuntimeApprovalTimeout},
	} {
		if within, ok := b.get(); ok && (bound.Within == 0 || within < bound.Within) {
			bound = Bound{Within: within, Source: fmt.Sprintf("%s in %s (Codewhale %s)", b.setting, snap.Paths.Config, snap.Release.Name())}
		}
	}
	return bound
}

// persist writes the "always" rules. A failed write still approves the
// call the user approved, once, and says so.
func (a *Authorizer) persist(snap *config.Snapshot, rules []execpolicy.Rule) string {
	path := snap.Paths.Permissions
	added, err := a.Grant(path, rules)
	if err != nil {
		return fmt.Sprintf("; the rule was NOT saved, so this approval counts once: %v", err)
	}
	if a.Granted != nil {
		a.Granted()
	}
	if added == 0 {
		return "; the rule was already in " + path
	}
	return fmt.Sprintf("; saved %d rule(s) to %s", added, path)
}

// Final logs a final decision made for agent, also one made without the
// gate (a refused request). Like Codewhale's approval receipts, evidence
// that cannot be written blocks the call.
func (a *Authorizer) Final(req gate.Request, agent string, d gate.Decision) gate.Decision {
	if a.Record != nil {
		if err := a.Record(EntryFor(time.Now(), req.Tool, agent, d)); err != nil && d.Decision == gate.Allow {
			d = blocked(d, "Decision evidence could not be committed; tool execution was blocked: "+err.Error())
		}
	}
	return d
}

// blocked turns an allow into a deny at the layer that allowed it.
func blocked(d gate.Decision, reason string) gate.Decision {
	d.Decision, d.Reason, d.Rule = gate.Deny, reason, nil
	d.Trace = append(d.Trace[:len(d.Trace):len(d.Trace)], gate.TraceEntry{Layer: d.Layer, Name: d.LayerName, Effect: gate.EffectDeny, Detail: reason})
	return d
}
