package shell

import "strings"

// maxArityDepth is the longest key length tried (the table has none longer
// than two words, but Codewhale tries three).
const maxArityDepth = 3

// Classify names a command by its arity-table key (execpolicy.md §3.5):
// positional (non-flag) words, ASCII-lowercased, cut to the arity of the
// longest matching key, else the first positional word; "" when there is
// none.
func Classify(command string) string {
	var positional []string
	for _, tok := range strings.Fields(command) {
		if !strings.HasPrefix(tok, "-") {
			positional = append(positional, lower(tok))
		}
	}
	n := len(positional)
	if n == 0 {
		return ""
	}
	for depth := min(maxArityDepth, n); depth >= 1; depth-- {
		if a, ok := arity[strings.Join(positional[:depth], " ")]; ok {
			return strings.Join(positional[:min(a, n)], " ")
		}
	}
	return positional[0]
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
	lowered := lower(strings.TrimSpace(pattern))
	return AllowPattern{Lowered: lowered, Collapsed: collapse(lowered)}
}

// AllowSubject is a command prepared for matching many patterns.
type AllowSubject struct {
	Class     string // Classify(command)
	Collapsed string // lowered, whitespace-collapsed command
}

// NewAllowSubject prepares command.
func NewAllowSubject(command string) AllowSubject {
	return AllowSubject{Class: Classify(command), Collapsed: collapse(lower(command))}
}

// Matches is allowMatch: the classification equals the pattern, or the
// collapsed command equals it or continues it after a space.
func (p AllowPattern) Matches(s AllowSubject) bool {
	if s.Class == p.Lowered || s.Collapsed == p.Collapsed {
		return true
	}
	return strings.HasPrefix(s.Collapsed, p.Collapsed) && len(s.Collapsed) > len(p.Collapsed) &&
		s.Collapsed[len(p.Collapsed)] == ' '
}

// PrefixKeys lists every Collapsed value of a pattern that matches s by the
// prefix fallback: each leading run of whole words. Together with Class it
// lets a caller index patterns instead of trying each.
func (s AllowSubject) PrefixKeys() []string {
	var keys []string
	for i := 0; i < len(s.Collapsed); i++ {
		if s.Collapsed[i] == ' ' {
			keys = append(keys, s.Collapsed[:i])
		}
	}
	return append(keys, s.Collapsed)
}

// AllowMatch is the arity-aware prefix matcher used for trusted prefixes
// and every non-exact typed command.
func AllowMatch(pattern, command string) bool {
	return NewAllowPattern(pattern).Matches(NewAllowSubject(command))
}

// ExactMatch is the command_exact comparison (§3.6): trimmed byte equality,
// case and inner whitespace significant.
func ExactMatch(rule, command string) bool {
	return strings.TrimSpace(rule) == strings.TrimSpace(command)
}
