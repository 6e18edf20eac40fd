package problem

import (
	"strconv"
	"unicode/utf8"
)

// ExcerptRunes is how many characters of a quoted text (a command, a path,
// an answer) a message shows.
const ExcerptRunes = 200

// Excerpt is s when it is short, else its first ExcerptRunes characters,
// an ellipsis and its full length: a message that quotes a 10 MB command
// must not itself be 10 MB.
func Excerpt(s string) string {
	if len(s) <= ExcerptRunes {
		return s
	}
	return CapRunes(s, ExcerptRunes, "… ("+strconv.Itoa(len(s))+" bytes in all)")
}

// CapRunes keeps the first limit characters of s and adds marker when it
// cut anything.
func CapRunes(s string, limit int, marker string) string {
	i := 0
	for n := 0; n < limit; n++ {
		if i == len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i == len(s) {
		return s
	}
	return s[:i] + marker
}
