package hardening

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// lookAlikes are letters that read as Latin ones a command name is
// written with (Cyrillic and Greek; NFKC maps the rest: ſ, fullwidth,
// ligatures, mathematical letters).
var lookAlikes = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S',
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'τ': 't', 'ι': 'i', 'κ': 'k', 'χ': 'x', 'υ': 'u',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// unconfuse is a command name with its look-alike letters read as the
// Latin ones they imitate; alike says whether any was.
func unconfuse(name string) (string, bool) {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return name, false
	}
	folded := norm.NFKC.String(name)
	var b strings.Builder
	for _, r := range folded {
		if l, ok := lookAlikes[r]; ok {
			r = l
		}
		b.WriteRune(r)
	}
	out := b.String()
	return out, out != name
}
