package execpolicy

import "strings"

// Rule is one typed permission rule (a permissions.toml record). Absent and
// empty optional fields differ: an absent command matches any command, `""`
// matches only commands with no positional word.
type Rule struct {
	Tool         string
	Command      *string
	CommandExact bool
	Path         *string
	Workspace    *string
	Action       Action
}

// Label is how Codewhale names the rule in reasons and matched_rule: the raw
// field values, no quoting or normalisation
// (`tool=exec_shell command=cargo test command_exact=true`).
func (r Rule) Label() string {
	var b strings.Builder
	b.WriteString("tool=")
	b.WriteString(r.Tool)
	if r.Command != nil {
		b.WriteString(" command=")
		b.WriteString(*r.Command)
	}
	if r.CommandExact {
		b.WriteString(" command_exact=true")
	}
	if r.Path != nil {
		b.WriteString(" path=")
		b.WriteString(*r.Path)
	}
	if r.Workspace != nil {
		b.WriteString(" workspace=")
		b.WriteString(*r.Workspace)
	}
	return b.String()
}

// presentFieldWeight makes every present qualifier outweigh any length, so a
// workspace-scoped broad rule beats a long unscoped one.
const presentFieldWeight = 1000

// Specificity ranks same-layer, same-action rules: the byte lengths of the
// raw fields, plus 1000 per present optional field, plus 1 for
// command_exact.
func (r Rule) Specificity() int {
	n := len(r.Tool)
	for _, f := range []*string{r.Command, r.Path, r.Workspace} {
		if f != nil {
			n += len(*f) + presentFieldWeight
		}
	}
	if r.CommandExact {
		n++
	}
	return n
}

// SameRecord is the approval card's duplicate test: all six fields equal,
// byte-exact, before any normalisation.
func SameRecord(a, b Rule) bool {
	return a.Tool == b.Tool && a.CommandExact == b.CommandExact && a.Action == b.Action &&
		sameOptional(a.Command, b.Command) && sameOptional(a.Path, b.Path) &&
		sameOptional(a.Workspace, b.Workspace)
}

func sameOptional(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Promoted reports the records §2.2 also turns into a global prefix: a
// deny (hard-deny prefix) or allow (trusted prefix) with a non-exact
// command and no workspace.
func (r Rule) Promoted() bool {
	return r.Action != Ask && r.Command != nil && !r.CommandExact && r.Workspace == nil
}
