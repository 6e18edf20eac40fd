package autoreview

import "github.com/codewhale-ls/codewhale-ls/gate/session"

// VerdictKind is the outcome of the deterministic decision.
type VerdictKind int

const (
	AskUser VerdictKind = iota
	Allow
	FloorHold
	Block
)

// Verdict is the decision with everything the audit event and the trace show.
type Verdict struct {
	Kind   VerdictKind
	Reason string
	RuleID string // the configured rule that decided, else ""
	Classification
	Origin              session.Origin
	WriteTargetsBounded bool
}

// Reasons of the built-in decisions (docs/codewhale/pipeline.md §6.4). The allow reasons
// are ours: the spec gives no text for them.
const (
	ReasonPublishFloor    = "publish-like action requires durable review"
	ReasonBackgroundFloor = "destructive background/headless action requires durable review"
	ReasonUnboundedWrite  = "Auto-Review requires every write target to stay inside the workspace and outside sensitive paths"
	ReasonUnknownCategory = "unknown tool category requires explicit review"
	ReasonSensitiveAction = "sensitive or destructive action requires explicit review"
	ReasonDestructive     = "destructive action requires explicit review"
	reasonReadOnly        = "read-only"
	reasonBoundedWrite    = "write targets stay inside the workspace"
	reasonRoutineShell    = "routine workspace shell command"
)

// Decide is docs/codewhale/pipeline.md §6.4. origin is the request's origin (combined with
// the call's own by RunOrigin); writeTargetsBounded is the carve-out path
// test on the call's write targets, consulted for writes under Auto-Review.
func Decide(cfg Config, c Call, posture session.Posture, origin session.Origin, writeTargetsBounded bool) Verdict {
	c = c.withShell() // once for Classify and the routine test
	v := Verdict{Classification: Classify(c), Origin: RunOrigin(c, origin), WriteTargetsBounded: writeTargetsBounded}
	decided := func(k VerdictKind, reason, ruleID string) Verdict {
		v.Kind, v.Reason, v.RuleID = k, reason, ruleID
		return v
	}
	if r, ok := firstMatch(cfg.Block, c, v.ActionKind); ok {
		return decided(Block, r.Reason, r.ID)
	}
	switch {
	case v.ActionKind == Publish && posture != session.FullAccess:
		return decided(FloorHold, ReasonPublishFloor, "")
	case v.ActionKind == DestructiveKind && v.Origin != session.Interactive:
		return decided(FloorHold, ReasonBackgroundFloor, "")
	case posture == session.AutoReview && v.ActionKind == Write && !writeTargetsBounded:
		return decided(AskUser, ReasonUnboundedWrite, "")
	}
	if r, ok := firstMatch(cfg.Allow, c, v.ActionKind); ok {
		return decided(Allow, r.Reason, r.ID)
	}
	autoReview := posture == session.AutoReview
	switch {
	case v.Category == Unknown:
		return decided(AskUser, ReasonUnknownCategory, "")
	case v.ActionKind == DestructiveKind:
		return decided(AskUser, ReasonSensitiveAction, "")
	case v.Risk == Benign:
		return decided(Allow, reasonReadOnly, "")
	case v.ActionKind == Write && autoReview:
		return decided(Allow, reasonBoundedWrite, "")
	case v.ActionKind == ShellKind && autoReview && c.Shell.RoutineAutoReview():
		return decided(Allow, reasonRoutineShell, "")
	}
	return decided(AskUser, ReasonDestructive, "")
}

// firstMatch is the first rule whose tool (exact, case-sensitive, against
// the raw name) and action kind both match where set. A rule with neither
// set matches nothing: Validate never produces one.
func firstMatch(rules []Rule, c Call, k ActionKind) (Rule, bool) {
	for _, r := range rules {
		if r.Tool == "" && r.ActionKind == "" {
			continue
		}
		if (r.Tool == "" || r.Tool == c.Tool) && (r.ActionKind == "" || r.ActionKind == k.String()) {
			return r, true
		}
	}
	return Rule{}, false
}
