package shell

import "github.com/codewhale-ls/codewhale-ls/gate/release"

// Expansion is what the expander finds in one command, as a release's
// expander reads it (docs/codewhale/releases/0.10.1.md, N9). The engine
// decides with it; the split conformance vectors of 0.10.1 check every
// field.
type Expansion struct {
	// Commands are the expander's command lines (expander_output).
	Commands []string
	// Dynamic: a command word is known only at run time (a variable,
	// substitution, glob or brace list, escaped quoting, a script read from
	// a pipe, text that does not parse cleanly): 0.10.1's N1 refusal.
	Dynamic bool
	// Nested: the command runs code nested in it (a -c string, eval, a
	// substitution, a heredoc fed to a shell).
	Nested bool
	// ArgumentsDynamic: an argument (not a command word) is known only at
	// run time.
	ArgumentsDynamic bool
	// Control: the command chains or controls other commands; 0.10.1's
	// grant chain test (N6). Before 0.10.1 the naive segmenter decides.
	Control bool
	// Redirects: the command redirects input or output.
	Redirects bool
	// PrefixGrantEligible: a trusted or allow prefix may cover the
	// command (0.10.1's N5: no nested code, no run-time command word, no
	// redirection, no read-to-write argument).
	PrefixGrantEligible bool
}

// ExpandAs expands command as release r's expander does:
//
//   - 0.9.10: Expand, with the naive chain test as Control; the other flags
//     are 0.10.1 notions and stay false, and every command is eligible.
//   - 0.10.0: the same expander, except that heredoc bodies are data
//     (docs/codewhale/releases/0.10.0.md A.3.2), see expandHeredocAware.
//   - 0.10.1: the rewritten expander (docs/codewhale/releases/0.10.1.md
//     A.3.2) with all its flags and prefix-grant eligibility (A.2.5).
func ExpandAs(r release.Release, command string) Expansion {
	switch {
	case r.Has(release.ExpanderRewrite):
		e := expandRewrite(command)
		e.PrefixGrantEligible = prefixGrantEligible(command, e)
		return e
	case r.Has(release.DenyTargetsFromExpander):
		return Expansion{Commands: expandHeredocAware(command), Control: Chained(command), PrefixGrantEligible: true}
	}
	return Expansion{Commands: expandClassic(command), Control: Chained(command), PrefixGrantEligible: true}
}
