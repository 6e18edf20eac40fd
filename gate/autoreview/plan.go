package autoreview

import (
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// EffectKind is what layer 6 does to the call's plan.
type EffectKind int

const (
	// EffectNone leaves the plan as the earlier layers made it.
	EffectNone EffectKind = iota
	// EffectAllow clears ordinary approval (not a hook ask or a forced prompt).
	EffectAllow
	// EffectForcePrompt requires approval with a forced prompt showing Text.
	EffectForcePrompt
	// EffectBlock blocks the call with Text.
	EffectBlock
	// EffectConsultReviewer asks the guardian, telling it Text; headless and ACP
	// callers turn this into EffectBlock.
	EffectConsultReviewer
)

// Effect is layer 6's change to the plan.
type Effect struct {
	Kind EffectKind
	Text string
}

// Plan is docs/codewhale/pipeline.md §6.5: the effect of a verdict in a posture. rawTool
// is the name the agent called, as the block message quotes it.
func Plan(v Verdict, posture session.Posture, rawTool string) Effect {
	autoReview := posture == session.AutoReview
	if autoReview && rawTool == "request_user_input" {
		return Effect{Kind: EffectAllow}
	}
	switch v.Kind {
	case Block:
		return Effect{Kind: EffectBlock, Text: fmt.Sprintf("Auto-review policy blocked tool '%s': %s", rawTool, v.Reason)}
	case FloorHold:
		text := "Built-in safety gate requires approval: " + v.Reason
		if posture == session.Ask {
			return Effect{Kind: EffectForcePrompt, Text: text}
		}
		return Effect{Kind: EffectBlock, Text: text}
	case Allow:
		if autoReview {
			return Effect{Kind: EffectAllow}
		}
	case AskUser:
		if autoReview {
			return Effect{Kind: EffectConsultReviewer, Text: v.Reason}
		}
	}
	return Effect{Kind: EffectNone}
}
