package execpolicy

// HasShellHolds says whether any typed rule denies or asks about shell
// commands: the only rules a shell line could hide a command from (the
// hardening layer, gate/layer_hardening.go). Codewhale's built-in deny
// prefixes hold too.
func (e *Engine) HasShellHolds() bool {
	if len(e.legacy.denied) > 0 {
		return true
	}
	for _, r := range e.typed {
		if r.rule.Tool == DefaultTool && r.rule.Action != Allow {
			return true
		}
	}
	return false
}

// RuleLabel is the label of the rule that decided, as a decision's rule
// field holds it: nil when no rule did.
func (v Verdict) RuleLabel() *string {
	if v.Rule == "" {
		return nil
	}
	r := v.Rule
	return &r
}
