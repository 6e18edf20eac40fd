package execpolicy

// Ruleset is one layer's rules: shell prefixes that are always blocked or
// trusted, and typed rules.
type Ruleset struct {
	Layer           Layer
	TrustedPrefixes []string
	DeniedPrefixes  []string
	Typed           []Rule
}

// CompileRules builds the User ruleset of a permissions.toml (§2.2): every
// record is a typed rule, and a deny/allow record with a non-exact command
// and no workspace also contributes its command, verbatim and whatever its
// tool or path, as a hard-deny/trusted prefix.
func CompileRules(rules []Rule) Ruleset {
	rs := Ruleset{Layer: User, Typed: append([]Rule(nil), rules...)}
	for _, r := range rules {
		if !r.Promoted() {
			continue
		}
		switch r.Action {
		case Deny:
			rs.DeniedPrefixes = append(rs.DeniedPrefixes, *r.Command)
		case Allow:
			rs.TrustedPrefixes = append(rs.TrustedPrefixes, *r.Command)
		}
	}
	return rs
}
