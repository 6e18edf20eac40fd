package execpolicy

import "slices"

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

// ShellHoldCommands are the commands of the typed rules that deny or ask
// about shell commands, and Codewhale's built-in deny prefixes: what a
// command whose words are only known when it runs could become (the
// hardening layer, gate/layer_hardening.go).
func (e *Engine) ShellHoldCommands() []string {
	if e == nil {
		return nil
	}
	out := slices.Clone(e.legacy.denied)
	for _, r := range e.typed {
		if r.rule.Tool == DefaultTool && r.rule.Action != Allow && r.rule.Command != nil {
			out = append(out, *r.rule.Command)
		}
	}
	return out
}
