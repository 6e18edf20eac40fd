package gate

import (
	"fmt"
	"slices"
)

// Choice is how an approval card ended: a human's answer, or why there was
// none (docs/codewhale/contract.md §3, Decision.approval.choice).
type Choice string

const (
	ChoiceOnce         Choice = "once"
	ChoiceSession      Choice = "session"
	ChoiceAlways       Choice = "always"
	ChoiceDeny         Choice = "deny"
	ChoiceTimeout      Choice = "timeout"
	ChoiceDismissed    Choice = "dismissed"
	ChoiceDisconnected Choice = "disconnected"
)

// Approves reports whether the call may run after this choice.
func (c Choice) Approves() bool {
	return c == ChoiceOnce || c == ChoiceSession || c == ChoiceAlways
}

// Answer is what came back from the approval card of an ask decision.
type Answer struct {
	Choice Choice
	// By says who answered, for the trace: the prompt's id and transport.
	By string
	// Why adds to a denial's reason (an unknown answer, a failed write).
	Why string
	// NotShown: no prompt was put to anyone (the editor cannot show one);
	// the choice stays dismissed, as the contract's approval.choice has
	// no other word for it, and the reason says nobody was asked.
	NotShown bool
}

// Answered turns an ask decision of layer 8 into the final decision: the
// answer decides layer 8, and the sandbox entry stays only for a call that
// runs. Anything but an ask of layer 8 is returned unchanged: an answer can
// never overturn another layer.
func Answered(d Decision, toolName string, a Answer) Decision {
	if d.Decision != Ask || d.Layer != LayerApproval {
		return d
	}
	out := d
	out.Trace = slices.Clone(d.Trace)
	out.Prompt = nil
	out.Approval = &Approval{Choice: string(a.Choice), Source: "prompt"}
	var entry TraceEntry
	if a.Choice.Approves() {
		out.Decision = Allow
		out.Reason = fmt.Sprintf("Approved by the user (%s) %s", approvalWording[a.Choice], a.By)
		entry = TraceEntry{Layer: LayerApproval, Name: LayerApproval.String(), Effect: EffectAllow, Detail: out.Reason}
	} else {
		out.Decision = Deny
		out.Reason = denialReason(toolName, a)
		out.Rule = nil
		entry = TraceEntry{Layer: LayerApproval, Name: LayerApproval.String(), Effect: EffectDeny, Detail: out.Reason + " " + a.By}
	}
	kept := out.Trace[:0]
	for _, t := range out.Trace {
		switch {
		case t.Layer == LayerApproval:
			kept = append(kept, entry)
		case t.Layer == LayerSandbox && !a.Choice.Approves():
		default:
			kept = append(kept, t)
		}
	}
	out.Trace = kept
	return out
}

var approvalWording = map[Choice]string{
	ChoiceOnce:    "once",
	ChoiceSession: "for this session",
	ChoiceAlways:  "always in this repo",
}

// denialReason follows Codewhale's wording for a card the user denied, and
// says plainly when nobody answered.
func denialReason(toolName string, a Answer) string {
	var why string
	switch a.Choice {
	case ChoiceDeny:
		why = fmt.Sprintf("Tool '%s' denied by user — the call was not approved. Do not retry the same call; ask the user how to proceed.", toolName)
	case ChoiceTimeout:
		why = fmt.Sprintf("Tool '%s' was not approved: the approval prompt timed out, which counts as a denial.", toolName)
	case ChoiceDismissed:
		if a.NotShown {
			why = fmt.Sprintf("Tool '%s' was not approved: no approval prompt could be shown, so nobody was asked, which counts as a denial.", toolName)
			break
		}
		why = fmt.Sprintf("Tool '%s' was not approved: the approval prompt was dismissed, which counts as a denial.", toolName)
	default:
		why = fmt.Sprintf("Tool '%s' was not approved: the editor went away before answering, which counts as a denial.", toolName)
	}
	if a.Why != "" {
		why += " (" + a.Why + ")"
	}
	return why
}
