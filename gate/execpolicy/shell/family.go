package shell

import "strings"

// KnownFamily reports whether family, a Classify result, names a command of
// the arity table rather than Classify's fallback to the first positional
// word: a command family Codewhale knows (0.10.1's narrowed session grants,
// docs/codewhale/releases/0.10.1.md Part D item 7).
//
// Its leading words joined by single spaces are the leading runs of its
// collapsed form, which for a Classify result is the family itself: no
// word list is built.
func KnownFamily(family string) bool {
	collapsed := collapse(family)
	for end := len(collapsed); end > 0; end = strings.LastIndexByte(collapsed[:end], ' ') {
		if _, ok := arity[collapsed[:end]]; ok {
			return true
		}
	}
	return false
}
