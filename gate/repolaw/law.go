// Package repolaw is layer 7 of Codewhale's authorization pipeline
// (docs/codewhale/pipeline.md §7): the protected paths a repository declares in
// `.codewhale/constitution.json`, which hold writes to them for a human
// (`ask`) or refuse them (`block`) whatever the posture.
package repolaw

import (
	"github.com/codewhale-ls/codewhale-ls/gate/globset"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Action is what a protected invariant does to a matching write; as the
// action of a Hold, None means no rule matched.
type Action int

const (
	None Action = iota
	Ask
	Block
)

func (a Action) String() string {
	switch a {
	case Ask:
		return "ask"
	case Block:
		return "block"
	default:
		return "none"
	}
}

// Rule is one enforced invariant: its text, the globs that compiled, and
// the span of its object in the file.
type Rule struct {
	Text     string
	Patterns []string // trimmed, valid, in file order
	Action   Action
	Span     problem.Span
	globs    []*globset.Glob
}

// Law is the compiled repository law. The zero Law holds nothing: it is
// what a missing or ignored file yields, since Codewhale fails open there.
type Law struct {
	Rules []Rule
}

// ConstitutionPath is the workspace-relative name of the file, as the
// reason texts spell it.
const ConstitutionPath = ".codewhale/constitution.json"
