package hardening

import (
	"strconv"
	"strings"
)

// Backslash escapes, read for each language the layer reads (bash's
// $'…', echo -e and printf, awk, Python, JavaScript, Lua, Perl): one loop
// and the pieces they share; each language's own rules are its
// escapeFunc.

// escapeFunc decodes the escape whose first character, after the
// backslash, is s[i], into b; more is how many characters after s[i] it
// took; ok is false for an escape whose value is not computed here
// (the text is then unknown); stop says it ends the text (echo's \c).
type escapeFunc func(s string, i int, b *strings.Builder) (more int, ok, stop bool)

// decodeEscapes is s with its backslash escapes decoded by escape; a
// backslash at the very end stays. ok and stop as escapeFunc's.
func decodeEscapes(s string, escape escapeFunc) (text string, ok, stop bool) {
	if !strings.Contains(s, `\`) {
		return s, true, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		more, ok, stop := escape(s, i, &b)
		if !ok {
			return "", false, false
		}
		if stop {
			return b.String(), true, true
		}
		i += more
	}
	return b.String(), true, false
}

// controlEscape is the control character of the one-letter escapes most
// languages share: \a \b \f \n \r \t \v.
func controlEscape(c byte) (byte, bool) {
	switch c {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	}
	return 0, false
}

// digits is the value of the run of at most width digits of base (8, 10
// or 16) at s[i:], and how many there are.
func digits(s string, i, width, base int) (uint64, int) {
	n := 0
	for i+n < len(s) && n < width && isDigit(s[i+n], base) {
		n++
	}
	if n == 0 {
		return 0, 0
	}
	v, _ := strconv.ParseUint(s[i:i+n], base, 32)
	return v, n
}

func isDigit(c byte, base int) bool {
	switch base {
	case 8:
		return '0' <= c && c <= '7'
	case 10:
		return '0' <= c && c <= '9'
	}
	return isHex(c)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// ansiC decodes the body of an ANSI-C quoted string ($'…') as bash does.
func ansiC(s string) string {
	text, _, _ := decodeEscapes(s, ansiCEscape)
	return text
}

// ansiCEscape is one escape of $'…' (and of printf's format).
func ansiCEscape(s string, i int, b *strings.Builder) (int, bool, bool) {
	c := s[i]
	if ctl, ok := controlEscape(c); ok {
		b.WriteByte(ctl)
		return 0, true, false
	}
	switch c {
	case 'e', 'E':
		b.WriteByte(0x1b)
	case '\\', '\'', '"', '?':
		b.WriteByte(c)
	case 'c':
		if i+1 < len(s) {
			b.WriteByte(s[i+1] & 0x1f)
			return 1, true, false
		}
	case 'x', 'u', 'U':
		v, n := digits(s, i+1, map[byte]int{'x': 2, 'u': 4, 'U': 8}[c], 16)
		switch {
		case n == 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == 'x':
			b.WriteByte(byte(v))
		default:
			b.WriteRune(rune(v))
		}
		return n, true, false
	default:
		if v, n := digits(s, i, 3, 8); n > 0 {
			b.WriteByte(byte(v))
			return n - 1, true, false
		}
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return 0, true, false
}

// bracedCode is a \u{HEX} escape (JavaScript, Lua) at s[i] == 'u'.
func bracedCode(s string, i int, b *strings.Builder) (int, bool, bool) {
	end := strings.IndexByte(s[i:], '}')
	if end < 0 {
		return 0, false, false
	}
	v, err := strconv.ParseUint(s[i+2:i+end], 16, 32)
	if err != nil {
		return 0, false, false
	}
	b.WriteRune(rune(v))
	return end, true, false
}
