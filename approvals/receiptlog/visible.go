package receiptlog

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// visibleAgain is a text of a receipt as a terminal may draw it. The
// writer made the input visible already (problem.Visible) and masked
// every text, so the texts hold Visible's escapes and the secrets'
// placeholders (⟪RLO U+202E⟫, ⟪secret: github token⟫); those are kept as
// they are, and every other character that is not printable ASCII is
// escaped as Visible escapes it. So a log written by hand, by an older
// release or by a bug shows no control sequence, invisible, direction or
// look-alike character either, while a receipt's own escapes read once,
// not escaped twice.
func visibleAgain(s string) string {
	if printableASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteByte(s[i])
		case r == '\n':
			b.WriteString(problem.NewlineMark)
		case r == []rune(problem.NewlineMark)[0]:
			b.WriteString(problem.NewlineMark)
		case r == []rune(problem.EscapeOpen)[0] && escapeLength(s[i:]) > 0:
			n := escapeLength(s[i:])
			b.WriteString(s[i : i+n])
			size = n
		default:
			shown, _ := problem.Visible{}.Show(s[i : i+size])
			b.WriteString(shown)
		}
		i += size
	}
	return b.String()
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

var (
	// asciiEscape: ⟪RLO U+202E⟫, ⟪U+200B⟫, ⟪byte 0xFF⟫, ⟪secret: jwt⟫.
	asciiEscape = regexp.MustCompile(`^⟪[ -~]{1,64}⟫`)
	// hiddenMark: the mark of a cut text (problem.Visible.CapShown).
	hiddenMark = regexp.MustCompile(`^⟪… [0-9]{1,20} bytes hidden …⟫`)
	// charEscape: ⟪ſ U+017F⟫, a visible character named with its code.
	charEscape = regexp.MustCompile(`^⟪(.) U\+[0-9A-F]{4,6}⟫`)
)

// escapeLength is the length of the escape of Visible's that s starts
// with, 0 when it starts with none. A character shown by itself in an
// escape counts only when Visible shows it exactly so.
func escapeLength(s string) int {
	if m := asciiEscape.FindString(s); m != "" {
		return len(m)
	}
	if m := hiddenMark.FindString(s); m != "" {
		return len(m)
	}
	if m := charEscape.FindStringSubmatch(s); m != nil {
		if shown, _ := (problem.Visible{}).Show(m[1]); shown == m[0] {
			return len(m[0])
		}
	}
	return 0
}

// oneLine is s visible on one line, at most width characters: cut at
// the end with "…" when longer.
func oneLine(s string, width int) string {
	return cut(visibleAgain(s), width)
}

// cut is s at most width characters, its end replaced by "…" when longer.
func cut(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	runes := []rune(s)
	return string(runes[:width-1]) + "…"
}

// cutStart is s at most width characters, its start replaced by "…" when
// longer: the end of a path names the repository.
func cutStart(s string, width int) string {
	if width <= 0 {
		return ""
	}
	n := utf8.RuneCountInString(s)
	if n <= width {
		return s
	}
	runes := []rune(s)
	return "…" + string(runes[n-width+1:])
}
