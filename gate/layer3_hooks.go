package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// runHooks is layer 3. A hook's updatedInput replaces the input every later
// layer sees.
func (p *plan) runHooks(ctx context.Context, deps Deps) (Decision, bool) {
	callID := ""
	if p.req.CallID != nil {
		callID = *p.req.CallID
	}
	call := hooks.Call{
		ToolName:  p.req.Tool,
		CallID:    callID,
		Input:     p.input,
		Mode:      p.s.mode.EngineSpelling(),
		SessionID: deps.SessionID,
		Workspace: p.req.Workspace,
		Model:     "codewhale-ls",
	}
	withheld := p.projectHooksWithheld(call)
	if deps.Hooks == nil || !p.snap.Hooks.Enabled || len(p.snap.Hooks.Hooks) == 0 {
		p.trace(LayerHooks, EffectNone, "no tool_call_before hooks"+withheld)
		return Decision{}, false
	}
	out := hooks.Before(ctx, deps.Hooks, deps.Background, p.snap.Hooks, call)
	for _, c := range out.Changes {
		p.changed(c)
	}
	ran := describeHookRecords(out.Records) + withheld
	if err := ctx.Err(); err != nil && !out.Denied {
		// A hook cut short has no verdict, and a cancelled call is denied,
		// whatever its hooks are configured to do on failure.
		p.trace(LayerHooks, EffectDeny, ran)
		return p.finish(Deny, LayerHooks, "The call was cancelled before its tool_call_before hooks gave a verdict ("+err.Error()+"); a cancelled call is denied.", nil), true
	}
	if out.Denied {
		p.trace(LayerHooks, EffectDeny, ran)
		return p.finish(Deny, LayerHooks, out.Reason, nil), true
	}
	switch {
	case out.UpdatedInput != nil:
		p.input = out.UpdatedInput
		p.hookAsk = out.Ask
		p.trace(LayerHooks, EffectRewrite, fmt.Sprintf("%s; input rewritten by a hook", ran))
	case out.Ask:
		p.hookAsk = true
		p.trace(LayerHooks, EffectAsk, fmt.Sprintf("%s; a hook asks for approval", ran))
	default:
		p.trace(LayerHooks, EffectNone, ran)
	}
	return Decision{}, false
}

// projectHooksWithheld says, for the trace, that a trusted workspace's
// hooks.toml did not load because its bytes are not approved, and names
// the release change when 0.9.10 would have run one of its hooks for call
// (docs/codewhale/releases/0.10.0.md B.3).
func (p *plan) projectHooksWithheld(call hooks.Call) string {
	switch st := p.snap.ProjectHooksStatus; st.State {
	case config.ProjectHooksNotApproved, config.ProjectHooksEdited, config.ProjectHooksStoreUnreadable:
		if hooks.WouldRun(st.Withheld, call) {
			p.changed(release.HookDigestApproval)
			p.withheldHook = true
			return "; project hooks.toml not loaded: " + st.Why + "; one of its hooks matches this call, so a human decides"
		}
		return "; project hooks.toml not loaded: " + st.Why
	}
	return ""
}

// withheldHookHold is the approval card's text for a call an unapproved
// project hook matches.
func withheldHookHold(snap *config.Snapshot) string {
	st := snap.ProjectHooksStatus
	return fmt.Sprintf("A tool_call_before hook in the project's hooks.toml matches this call, but the file is not loaded (%s). Codewhale %s runs it once its bytes are approved (/hooks approve %s); codewhale-ls does not run unapproved repository code, so you decide. Approving the file in Codewhale, or with `%s`, lets codewhale-ls run the hook instead.",
		st.Why, snap.Release.Name(), st.Digest, config.ApproveCommand(snap.Paths.ProjectHooks))
}

func describeHookRecords(records []hooks.Record) string {
	if len(records) == 0 {
		return "no matching tool_call_before hook"
	}
	parts := make([]string, 0, len(records))
	for _, r := range records {
		s := fmt.Sprintf("%s: %s", r.Label, r.Effect)
		if r.ExitCode != nil {
			s += fmt.Sprintf(" (exit %d)", *r.ExitCode)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
