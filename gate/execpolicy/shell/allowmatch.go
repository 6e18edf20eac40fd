package shell

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// maxArityDepth is the longest key length tried (the table has none longer
// than two words, but Codewhale tries three).
const maxArityDepth = 3

// Classify names a command by its arity-table key as the dialect's release
// does (docs/codewhale/execpolicy.md §3.5): positional (non-flag) words,
// ASCII-lowercased, cut to the arity of the longest matching key, else the
// first positional word; "" when there is none.
func (d Dialect) Classify(command string) string {
	spelled := collapse(command)
	return d.classifyCollapsed(ascii.Lower(spelled), spelled)
}

// classifyCollapsed is Classify of text already lowered and collapsed, whose
// words are Classify's tokens, lowered; spelled is the same text before
// lowering (collapsing does not touch ASCII letters, so the two share every
// byte offset). The key never needs more than the first maxArityDepth
// positional words (no arity exceeds it), and is a substring of the text
// unless flags sit between those words. With PythonModule the `-m` right
// after a leading python or python3 counts as a positional word, so the
// table's `python -m` keys apply (docs/codewhale/releases/0.10.1.md A.2.5);
// 0.10.1 lowercases only that first word before the test and wants the
// token spelled exactly `-m`, so `Python -M pytest` is `python`.
func (d Dialect) classifyCollapsed(collapsed, spelled string) string {
	var positional [maxArityDepth]wordSpan
	n := 0
	for start := 0; start < len(collapsed) && n < maxArityDepth; {
		end := strings.IndexByte(collapsed[start:], ' ')
		if end < 0 {
			end = len(collapsed)
		} else {
			end += start
		}
		if collapsed[start] != '-' || d.PythonModule && n == 1 && positional[0].start == 0 &&
			positional[0].end == start-1 && isPythonName(collapsed[:start-1]) && spelled[start:end] == "-m" {
			positional[n] = wordSpan{start, end}
			n++
		}
		start = end + 1
	}
	if n == 0 {
		return ""
	}
	for depth := n; depth >= 1; depth-- {
		if a, ok := arity[joinSpans(collapsed, positional[:depth])]; ok {
			return joinSpans(collapsed, positional[:min(a, n)])
		}
	}
	return joinSpans(collapsed, positional[:1])
}

func isPythonName(word string) bool { return word == "python" || word == "python3" }

// wordSpan is a word's byte range in the text it was found in.
type wordSpan struct{ start, end int }

// joinSpans is the words joined by single spaces: a substring of the
// collapsed text when they are adjacent in it, a new string otherwise.
func joinSpans(collapsed string, words []wordSpan) string {
	adjacent := true
	for i := 1; i < len(words); i++ {
		adjacent = adjacent && words[i].start == words[i-1].end+1
	}
	if adjacent {
		return collapsed[words[0].start:words[len(words)-1].end]
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = collapsed[w.start:w.end]
	}
	return strings.Join(parts, " ")
}

// AllowPattern is a trusted prefix or non-exact typed command, prepared for
// matching many subjects.
type AllowPattern struct {
	// Lowered is the trimmed, ASCII-lowercased pattern; it must equal the
	// subject's classification exactly (inner whitespace is not collapsed).
	Lowered string
	// Collapsed is Lowered with whitespace runs collapsed, for the
	// word-boundary prefix fallback.
	Collapsed string
}

// NewAllowPattern prepares pattern.
func NewAllowPattern(pattern string) AllowPattern {
	lowered := ascii.Lower(strings.TrimSpace(pattern))
	return AllowPattern{Lowered: lowered, Collapsed: collapse(lowered)}
}

// AllowSubject is a command prepared for matching many patterns.
type AllowSubject struct {
	Class string // Classify(command)
	// ClassMatches says whether a pattern may match by Class: always before
	// 0.10.1; from it only a non-empty class spelled at the front of the
	// command (docs/codewhale/releases/0.10.1.md N5).
	ClassMatches bool
	Collapsed    string // lowered, whitespace-collapsed command
}

// AllowSubject prepares command as the dialect's release reads it.
func (d Dialect) AllowSubject(command string) AllowSubject {
	spelled := collapse(command)
	collapsed := ascii.Lower(spelled)
	class := d.classifyCollapsed(collapsed, spelled)
	leading := class != "" && strings.HasPrefix(collapsed, class) &&
		(len(collapsed) == len(class) || collapsed[len(class)] == ' ')
	return AllowSubject{Class: class, ClassMatches: !d.LiteralLeading || leading, Collapsed: collapsed}
}

// Matches is allowMatch: the classification equals the pattern, or the
// collapsed command equals it or continues it after a space.
func (p AllowPattern) Matches(s AllowSubject) bool {
	if s.ClassMatches && s.Class == p.Lowered || s.Collapsed == p.Collapsed {
		return true
	}
	return strings.HasPrefix(s.Collapsed, p.Collapsed) && len(s.Collapsed) > len(p.Collapsed) &&
		s.Collapsed[len(p.Collapsed)] == ' '
}

// PrefixKeys lists every Collapsed value of a pattern that matches s by the
// prefix fallback: each leading run of whole words. Together with Class it
// lets a caller index patterns instead of trying each.
func (s AllowSubject) PrefixKeys() []string { return slices.Collect(s.PrefixKeySeq) }

// PrefixKeySeq yields PrefixKeys without collecting them, shortest first.
func (s AllowSubject) PrefixKeySeq(yield func(string) bool) {
	for i := 0; i < len(s.Collapsed); i++ {
		if s.Collapsed[i] == ' ' && !yield(s.Collapsed[:i]) {
			return
		}
	}
	yield(s.Collapsed)
}

// AllowMatch is the arity-aware prefix matcher used for trusted prefixes
// and every non-exact typed command, as the dialect's release reads it.
func (d Dialect) AllowMatch(pattern, command string) bool {
	return NewAllowPattern(pattern).Matches(d.AllowSubject(command))
}

// ExactKey is what the command_exact comparison (§3.6) compares: a rule's
// command and a call's match exactly when their keys are equal, which is
// trimmed byte equality, case and inner whitespace significant. The engine
// indexes command_exact rules by it and looks calls up by it.
func ExactKey(command string) string {
	return strings.TrimSpace(command)
}
