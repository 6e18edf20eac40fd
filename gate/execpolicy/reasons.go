package execpolicy

// The reason strings Codewhale reports (docs/codewhale/execpolicy.md §5, reason codes).
const (
	reasonAllowed     = "Execution allowed by policy."
	reasonRejectRules = "Policy is configured to reject rule-exceptions."
	reasonModeRequest = "Approval requested by policy mode."
	reasonUnmatched   = "Unmatched command prefix requires approval."
	// reasonRunTimeWords is R-DYN of docs/codewhale/releases/0.10.1.md.
	reasonRunTimeWords = "Deny rules are in force and this command's words are only known when it runs (a variable, substitution, glob or brace list, escaped quoting, a script read from a pipe, or text that does not parse cleanly), so they cannot be checked against those rules."
)

// The reasons naming a rule are built by concatenation: they are on the path
// of every matched call, where fmt's formatting costs several allocations.

func deniedPrefixReason(prefix string) string {
	return "Command blocked by denied prefix rule '" + prefix + "'"
}

func segmentDenyReason(label string) string {
	return "Permission rule '" + label + "' explicitly denies a chained segment of this invocation."
}

func invocationDenyReason(label string) string {
	return "Permission rule '" + label + "' explicitly denies this invocation."
}

func typedAskReason(label string) string {
	return "Typed ask rule '" + label + "' requires approval."
}

func typedAskNeverReason(label string) string {
	return "Typed ask rule '" + label + "' requires approval, but approval policy is never."
}
