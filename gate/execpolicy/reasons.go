package execpolicy

// The reason strings Codewhale reports (execpolicy.md §5, reason codes).
const (
	reasonAllowed        = "Execution allowed by policy."
	reasonRejectRules    = "Policy is configured to reject rule-exceptions."
	reasonModeRequest    = "Approval requested by policy mode."
	reasonUnmatched      = "Unmatched command prefix requires approval."
	deniedPrefixFormat   = "Command blocked by denied prefix rule '%s'"
	segmentDenyFormat    = "Permission rule '%s' explicitly denies a chained segment of this invocation."
	invocationDenyFormat = "Permission rule '%s' explicitly denies this invocation."
	typedAskFormat       = "Typed ask rule '%s' requires approval."
	typedAskNeverFormat  = "Typed ask rule '%s' requires approval, but approval policy is never."
)
