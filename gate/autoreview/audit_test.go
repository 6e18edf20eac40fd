package autoreview

// AuditDecision is a test instrument: the product logs no audit events.

// AuditDecision is the `decision` field of the tool.auto_review audit event.
func (k VerdictKind) AuditDecision() string {
	switch k {
	case Allow:
		return "allow"
	case FloorHold:
		return "hold_for_review"
	case Block:
		return "block"
	default:
		return "ask_user"
	}
}
