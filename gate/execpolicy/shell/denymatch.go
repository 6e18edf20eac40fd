package shell

import "strings"

// DenyTokens is the hard-deny matcher's view of a text (docs/codewhale/execpolicy.md §3.4):
// ASCII-lowercased whitespace tokens with leading `$(`, `(`, `{` and
// trailing `)`, `}`, `;` stripped; tokens left empty are dropped.
func DenyTokens(text string) []string { return AppendDenyTokens(nil, text) }

// AppendDenyTokens appends DenyTokens(text) to dst, so that a caller's small
// buffer can hold them.
func AppendDenyTokens(dst []string, text string) []string {
	for tok := range strings.FieldsSeq(lower(text)) {
		for strings.HasPrefix(tok, "$(") {
			tok = tok[2:]
		}
		tok = strings.TrimLeft(tok, "({")
		tok = strings.TrimRight(tok, ")};")
		if tok != "" {
			dst = append(dst, tok)
		}
	}
	return dst
}

// DenyMatch reports whether the hard-deny prefix rule matches target.
func DenyMatch(rule, target string) bool {
	return DenyMatchTokens(DenyTokens(rule), DenyTokens(target))
}

// DenyMatchTokens matches token lists from DenyTokens: after the target's
// leading assignments, the rule's tokens must appear in order, the first one
// also by basename, with only flags (and one value after a flag without `=`)
// skipped in between. An empty rule never matches.
func DenyMatchTokens(rule, target []string) bool {
	if len(rule) == 0 || !laterTokensPresent(rule, target) {
		return false
	}
	var small [64]bool
	failed := small[:0]
	if n := len(target) * len(rule); n <= len(small) {
		failed = small[:n]
	} else {
		failed = make([]bool, n)
	}
	m := denySearch{rule: rule, target: target, failed: failed}
	return m.from(commandStart(target), 0)
}

// laterTokensPresent is a cheap necessary condition: rule tokens after the
// first only ever match equal target tokens.
func laterTokensPresent(rule, target []string) bool {
	for _, want := range rule[1:] {
		found := false
		for _, tok := range target {
			if tok == want {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// commandStart skips the target's leading NAME=value tokens.
func commandStart(target []string) int {
	i := 0
	for i < len(target) && isAssignment(target[i]) {
		i++
	}
	return i
}

type denySearch struct {
	rule, target []string
	failed       []bool // states (i, j) at i*len(rule)+j known not to lead to a match
}

func (m *denySearch) from(i, j int) bool {
	if j == len(m.rule) {
		return true
	}
	if i >= len(m.target) || m.failed[i*len(m.rule)+j] {
		return false
	}
	tok := m.target[i]
	if m.tokenMatches(tok, j) && m.from(i+1, j+1) {
		return true
	}
	if strings.HasPrefix(tok, "-") {
		if m.from(i+1, j) {
			return true
		}
		if !strings.Contains(tok, "=") && m.from(i+2, j) {
			return true
		}
	}
	m.failed[i*len(m.rule)+j] = true
	return false
}

// tokenMatches compares exactly, except that the command word (rule token
// 0, when it names no directory) also matches by basename: `/usr/bin/git`
// is `git`.
func (m *denySearch) tokenMatches(tok string, j int) bool {
	want := m.rule[j]
	if tok == want {
		return true
	}
	if j > 0 || strings.ContainsAny(want, `/\`) {
		return false
	}
	base := basename(tok)
	return base != "" && base == want
}

// DenyHeads lists every spelling the first rule token must have for
// DenyMatchTokens(rule, target) to hold: the tokens the search can reach
// before matching anything, and their basenames. It lets a caller index
// deny rules by their first token.
func DenyHeads(target []string) []string { return AppendDenyHeads(nil, target) }

// AppendDenyHeads appends DenyHeads(target) to dst, so that a caller's small
// buffer can hold them.
func AppendDenyHeads(dst []string, target []string) []string {
	// From a reached flag i the search reaches token i+1 and, when the flag
	// has no `=`, token i+2; so whether i, i+1 and i+2 are reached rolls
	// along instead of living in a slice.
	reached, next, afterNext := true, false, false
	for i := commandStart(target); i < len(target); i++ {
		if tok := target[i]; reached {
			dst = append(dst, tok)
			if base := basename(tok); base != tok && base != "" {
				dst = append(dst, base)
			}
			if strings.HasPrefix(tok, "-") {
				next = true
				if !strings.Contains(tok, "=") {
					afterNext = true
				}
			}
		}
		reached, next, afterNext = next, afterNext, false
	}
	return dst
}
