package shell

import "strings"

// KnownFamily reports whether family, a Classify result, names a command of
// the arity table rather than Classify's fallback to the first positional
// word: a command family Codewhale knows (0.10.1's narrowed session grants,
// docs/codewhale/releases/0.10.1.md Part D item 7).
func KnownFamily(family string) bool {
	words := strings.Fields(family)
	for depth := len(words); depth >= 1; depth-- {
		if _, ok := arity[strings.Join(words[:depth], " ")]; ok {
			return true
		}
	}
	return false
}
