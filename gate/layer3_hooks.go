package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
)

// runHooks is layer 3. A hook's updatedInput replaces the input every later
// layer sees.
func (p *plan) runHooks(ctx context.Context, deps Deps) (Decision, bool) {
	if deps.Hooks == nil || !p.snap.Hooks.Enabled || len(p.snap.Hooks.Hooks) == 0 {
		p.trace(LayerHooks, EffectNone, "no tool_call_before hooks")
		return Decision{}, false
	}
	callID := ""
	if p.req.CallID != nil {
		callID = *p.req.CallID
	}
	out := hooks.Before(ctx, deps.Hooks, deps.Background, p.snap.Hooks, hooks.Call{
		ToolName:  p.req.Tool,
		CallID:    callID,
		Input:     p.input,
		Mode:      p.s.mode.EngineSpelling(),
		SessionID: deps.SessionID,
		Workspace: p.req.Workspace,
		Model:     "codewhale-ls",
	})
	for _, c := range out.Changes {
		p.changed(c)
	}
	ran := describeHookRecords(out.Records)
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
