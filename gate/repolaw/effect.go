package repolaw

import (
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// OutcomeKind is what a hold does to the plan of a call.
type OutcomeKind int

const (
	Proceed     OutcomeKind = iota // no hold: the plan is unchanged
	ForcePrompt                    // approval required and forced: no session grant or saved rule passes it
	Blocked                        // the call is refused
)

// String is the decision spelling of the tool.repo_law_decision audit event.
func (k OutcomeKind) String() string {
	switch k {
	case ForcePrompt:
		return "force_prompt"
	case Blocked:
		return "block"
	default:
		return "none"
	}
}

// Outcome is the plan effect of a hold; Reason is the card description or
// the tool error.
type Outcome struct {
	Kind   OutcomeKind
	Reason string
}

// Effect applies a hold to a call's plan (docs/codewhale/pipeline.md §7.2 "Plan effect"):
// a block refuses the call in every posture; an ask opens a forced card only
// where a human can answer one (posture Ask without auto-approval) and is
// refused everywhere else, naming the raw tool and the posture.
func Effect(h Hold, posture session.Posture, autoApprove bool, rawToolName string) Outcome {
	switch {
	case h.Action == Block:
		return Outcome{Kind: Blocked, Reason: h.Reason}
	case h.Action != Ask:
		return Outcome{}
	case posture == session.Ask && !autoApprove:
		return Outcome{Kind: ForcePrompt, Reason: h.Reason}
	}
	return Outcome{Kind: Blocked, Reason: fmt.Sprintf(
		"Repository law blocked tool '%s' in %s: %s. Switch to Ask to review this protected change.",
		rawToolName, posture.Label(), h.Reason)}
}
