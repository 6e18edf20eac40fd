package problem

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The marks of visible text. An escape is written between EscapeOpen and
// EscapeClose; a newline is shown as NewlineMark. These three characters
// are escaped themselves wherever they occur in the text, so the text can
// neither forge an escape nor hide a line break.
const (
	EscapeOpen  = "⟪"
	EscapeClose = "⟫"
	NewlineMark = "⏎"
)

// Visible is how a person must be shown a text they may approve: a
// command, a path, a patch an agent wrote (docs/architecture.md, "What
// the card shows"). Every character that is not printable ASCII becomes a
// visible escape: a control or invisible one by its short name and code
// point (⟪RLO U+202E⟫, ⟪ZWSP U+200B⟫, ⟪TAB⟫), a visible non-ASCII one by
// itself and its code point (⟪ſ U+017F⟫, which looks like an f but is
// not an s), a byte that is not UTF-8 by its value (⟪byte 0xFF⟫). So no
// direction control can reorder what is drawn, no zero-width or
// look-alike character can pass for another, and nothing can hide the end
// of the text.
type Visible struct {
	// Multiline keeps line breaks: each newline is NewlineMark followed by
	// a real "\n". Otherwise a newline is NewlineMark alone.
	Multiline bool
	// Allow lists non-ASCII characters shown as themselves: punctuation of
	// the server's own messages (an em dash, an ellipsis) that quote an
	// agent's text. Never used for the agent's own fields.
	Allow string
}

// Show renders s and says how many characters it showed as escapes.
func (v Visible) Show(s string) (string, int) {
	var b strings.Builder
	b.Grow(len(s))
	escaped := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "%sbyte 0x%02X%s", EscapeOpen, s[i], EscapeClose)
			escaped++
		case r == '\n':
			b.WriteString(NewlineMark)
			if v.Multiline {
				b.WriteByte('\n')
			}
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r >= 0x80 && strings.ContainsRune(v.Allow, r) && !isMark(r):
			b.WriteRune(r)
		default:
			b.WriteString(escape(r))
			escaped++
		}
		i += size
	}
	return b.String(), escaped
}

// isMark reports whether r is one of the marks of visible text.
func isMark(r rune) bool {
	return strings.ContainsRune(EscapeOpen+EscapeClose+NewlineMark, r)
}

// escape is the escape of one character.
func escape(r rune) string {
	code := fmt.Sprintf("U+%04X", r)
	if name, ok := charNames[r]; ok {
		if name == "" { // named by its code point alone
			return EscapeOpen + code + EscapeClose
		}
		return EscapeOpen + name + " " + code + EscapeClose
	}
	if !isMark(r) && !invisible(r) {
		return EscapeOpen + string(r) + " " + code + EscapeClose
	}
	return EscapeOpen + code + EscapeClose
}

// invisible reports whether r draws nothing a person can tell apart, or
// changes how its neighbours are drawn: controls, format characters
// (direction controls, zero-width ones), spaces other than ASCII's,
// combining marks (which draw on the character before them), private use
// and unassigned code points.
func invisible(r rune) bool {
	return !unicode.IsGraphic(r) || unicode.In(r, unicode.Zs, unicode.Mn, unicode.Me)
}

// charNames are short names of the characters a reader should recognise
// at once; "" means the code point alone says enough. TAB and CR have
// names since they are common in pasted commands.
var charNames = map[rune]string{
	'\t': "TAB", '\r': "CR", 0x00: "NUL", 0x1b: "ESC", 0x7f: "DEL", 0x08: "BS",
	0xa0: "NBSP", 0xad: "SHY", 0x34f: "CGJ", 0x61c: "ALM",
	0x180e: "MVS", 0x200b: "ZWSP", 0x200c: "ZWNJ", 0x200d: "ZWJ", 0x200e: "LRM", 0x200f: "RLM",
	0x2028: "LS", 0x2029: "PS", 0x202a: "LRE", 0x202b: "RLE", 0x202c: "PDF", 0x202d: "LRO", 0x202e: "RLO",
	0x202f: "NNBSP", 0x2060: "WJ", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI",
	0x3000: "IDSP", 0xfeff: "BOM",
	0x27ea: "", 0x27eb: "", 0x23ce: "",
}

// VisibleCapBytes bounds the text a card carries of one value: past it,
// the start and the end are shown around a line saying how much is left
// out, since a danger is as likely at the end as at the start.
const VisibleCapBytes = 64 << 10

// ShowCapped is Show of a value that may be very long: at most limit
// bytes of it, half from its start and half from its end (at character
// boundaries), around a line ⟪… N bytes hidden …⟫. It returns the text,
// the escapes in it and the bytes left out.
func (v Visible) ShowCapped(s string, limit int) (text string, escaped, hidden int) {
	head, tail, hidden := splitMiddle(s, limit)
	h, he := v.Show(head)
	if hidden == 0 {
		return h, he, 0
	}
	t, te := v.Show(tail)
	return v.join(h, t, hidden), he + te, hidden
}

// CapShown cuts text that is already visible (Show's output) to at most
// limit bytes as ShowCapped does, without escaping it again.
func (v Visible) CapShown(text string, limit int) string {
	head, tail, hidden := splitMiddle(text, limit)
	if hidden == 0 {
		return head
	}
	return v.join(head, tail, hidden)
}

// JoinEnds puts head and tail, visible text of a value's two ends cut
// apart elsewhere, around the line saying hidden bytes lie between them.
func (v Visible) JoinEnds(head, tail string, hidden int) string {
	return v.join(head, tail, hidden)
}

// splitMiddle is s's first and last limit/2 bytes (at character
// boundaries) and how many bytes lie between them; all of s and 0 when it
// is within limit.
func splitMiddle(s string, limit int) (head, tail string, hidden int) {
	if len(s) <= limit {
		return s, "", 0
	}
	head = s[:runeStart(s, limit/2)]
	tail = s[runeStart(s, len(s)-limit/2):]
	return head, tail, len(s) - len(head) - len(tail)
}

// join puts the line that says how much is hidden between head and tail.
func (v Visible) join(head, tail string, hidden int) string {
	sep := " "
	if v.Multiline {
		sep = "\n"
	}
	return head + sep + EscapeOpen + "… " + strconv.Itoa(hidden) + " bytes hidden …" + EscapeClose + sep + tail
}

// runeStart moves i back to the start of the character it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
