package hooks

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Codewhale parses a hook's whole stdout, however long, as one JSON value
// (docs/codewhale/pipeline.md §3.5, stdout parsing). reduceStdout does the same while it
// reads the pipe, in bounded memory: it validates all of it but keeps only
// the four fields parseReply reads, each under a cap that cannot change
// the reply:
//   - `decision` matters only when it is exactly allow, deny or ask, so
//     longer strings are kept as "" (no decision);
//   - `reason` and `additionalContext` are kept from their first character
//     that survives sanitize, up to its 2 000-character cap, plus whether
//     anything but spaces follows (the truncation marker);
//   - `updatedInput` is kept as its JSON text without insignificant
//     whitespace when that is at most maxKeptInputBytes. Escapes and
//     number spellings shrink text by at most 6:1 except for numbers padded
//     with hundreds of KiB of digits, so only such an input, which Codewhale
//     could accept, is ignored here.
//
// Keys appearing twice count once, the last one, as in parseReply.
const (
	maxKeptInputBytes = 8 * maxUpdatedInputBytes
	maxKeptKeyBytes   = len("additionalContext")
	maxKeptDecision   = len("allow")
	// maxJSONDepth is the deepest nesting serde_json, Codewhale's JSON
	// parser, accepts: its recursion limit starts at 128 and a value
	// fails when the 128th nested array or object is entered. Deeper
	// output is not JSON to Codewhale, so the hook says nothing and the
	// call passes through, even under a `decision: deny`: a Codewhale
	// fail-open, reproduced (and documented in docs/architecture.md).
	maxJSONDepth = 127
)

var errNotJSON = errors.New("not JSON")

// reduceStdout reads r to its end and returns what parseReply needs of it:
// "" when it is not a JSON object, else a small object of the fields the
// fold reads, for which parseReply returns the same reply as for all of r.
func reduceStdout(r io.Reader) string {
	s := &stdoutScanner{in: bufio.NewReaderSize(r, 64*1024)}
	kept, err := s.document()
	if err != nil {
		_, _ = io.Copy(io.Discard, s.in) // the hook must never block on a full pipe
		return ""
	}
	return kept
}

type stdoutScanner struct {
	in    *bufio.Reader
	depth int
}

// keptFields are the last occurrence of each field the fold reads, as
// JSON texts.
type keptFields map[string]string

var keptOrder = []string{"decision", "reason", "additionalContext", "updatedInput"}

// document is the whole of stdout: Unicode spaces (strings.TrimSpace), one
// value, Unicode spaces, the end.
func (s *stdoutScanner) document() (string, error) {
	if err := s.skipUnicodeSpace(); err != nil {
		return "", err
	}
	b, err := s.in.ReadByte()
	if err != nil {
		return "", errNotJSON
	}
	var kept keptFields
	if b == '{' {
		kept = keptFields{}
		err = s.object(kept)
	} else {
		_ = s.in.UnreadByte()
		err = s.value(nil)
	}
	if err != nil {
		return "", err
	}
	if err := s.skipUnicodeSpace(); err != io.EOF {
		return "", errNotJSON
	}
	if kept == nil {
		return "", nil // JSON, but not an object: says nothing
	}
	var out strings.Builder
	out.WriteByte('{')
	for _, key := range keptOrder {
		if v, ok := kept[key]; ok {
			if out.Len() > 1 {
				out.WriteByte(',')
			}
			out.WriteString(`"` + key + `":` + v)
		}
	}
	out.WriteByte('}')
	return out.String(), nil
}

// skipUnicodeSpace skips what strings.TrimSpace trims; it returns io.EOF
// at the end of the input, nil before anything else.
func (s *stdoutScanner) skipUnicodeSpace() error {
	for {
		r, _, err := s.in.ReadRune()
		if err != nil {
			return io.EOF
		}
		if !unicode.IsSpace(r) {
			return s.in.UnreadRune()
		}
	}
}

func (s *stdoutScanner) skipSpace() (byte, error) {
	for {
		b, err := s.in.ReadByte()
		if err != nil {
			return 0, errNotJSON
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return b, nil
		}
	}
}

func (s *stdoutScanner) enter() error {
	if s.depth++; s.depth > maxJSONDepth {
		return errNotJSON
	}
	return nil
}

// object reads the members of an object after its '{'. kept, when not
// nil, collects the fields the fold reads (the top level only).
func (s *stdoutScanner) object(kept keptFields) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	b, err := s.skipSpace()
	if err != nil || b == '}' {
		return err
	}
	for {
		if b != '"' {
			return errNotJSON
		}
		var key boundedText
		key.limit = maxKeptKeyBytes
		if err := s.str(&key); err != nil {
			return err
		}
		if b, err = s.skipSpace(); err != nil || b != ':' {
			return errNotJSON
		}
		if kept == nil || key.over {
			err = s.value(nil)
		} else {
			err = s.member(kept, key.b.String())
		}
		if err != nil {
			return err
		}
		if b, err = s.skipSpace(); err != nil {
			return err
		}
		switch b {
		case '}':
			return nil
		case ',':
			if b, err = s.skipSpace(); err != nil {
				return err
			}
		default:
			return errNotJSON
		}
	}
}

// member reads the value of a top-level key and keeps it when the fold
// reads it.
func (s *stdoutScanner) member(kept keptFields, key string) error {
	delete(kept, key) // a later value of another type replaces an earlier one
	b, err := s.skipSpace()
	if err != nil {
		return err
	}
	_ = s.in.UnreadByte()
	switch {
	case key == "decision" && b == '"':
		var d boundedText
		d.limit = maxKeptDecision
		_, _ = s.in.ReadByte()
		if err := s.str(&d); err != nil {
			return err
		}
		kept[key] = `""`
		if !d.over {
			kept[key] = quote(d.b.String())
		}
	case (key == "reason" || key == "additionalContext") && b == '"':
		var t sanitizedText
		_, _ = s.in.ReadByte()
		if err := s.str(&t); err != nil {
			return err
		}
		kept[key] = quote(t.String())
	case key == "updatedInput" && b == '{':
		raw := &compactJSON{limit: maxKeptInputBytes}
		if err := s.value(raw); err != nil {
			return err
		}
		if !raw.over {
			kept[key] = raw.b.String()
		}
	default:
		return s.value(nil)
	}
	return nil
}

// value reads one JSON value; raw, when not nil, receives its text
// without insignificant whitespace.
func (s *stdoutScanner) value(raw *compactJSON) error {
	b, err := s.skipSpace()
	if err != nil {
		return err
	}
	raw.byte(b)
	switch {
	case b == '{':
		return s.container(raw, '}', true)
	case b == '[':
		return s.container(raw, ']', false)
	case b == '"':
		return s.str(raw)
	case b == '-' || ('0' <= b && b <= '9'):
		return s.number(raw, b)
	case b == 't':
		return s.literal(raw, "rue")
	case b == 'f':
		return s.literal(raw, "alse")
	case b == 'n':
		return s.literal(raw, "ull")
	}
	return errNotJSON
}

// container reads an array or a nested object after its opening byte.
func (s *stdoutScanner) container(raw *compactJSON, closing byte, isObject bool) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	b, err := s.skipSpace()
	if err != nil {
		return err
	}
	if b == closing {
		raw.byte(b)
		return nil
	}
	_ = s.in.UnreadByte()
	for {
		if isObject {
			if b, err = s.skipSpace(); err != nil || b != '"' {
				return errNotJSON
			}
			raw.byte(b)
			if err := s.str(raw); err != nil {
				return err
			}
			if b, err = s.skipSpace(); err != nil || b != ':' {
				return errNotJSON
			}
			raw.byte(b)
		}
		if err := s.value(raw); err != nil {
			return err
		}
		if b, err = s.skipSpace(); err != nil {
			return err
		}
		raw.byte(b)
		switch b {
		case closing:
			return nil
		case ',':
		default:
			return errNotJSON
		}
	}
}

func (s *stdoutScanner) literal(raw *compactJSON, rest string) error {
	for i := 0; i < len(rest); i++ {
		b, err := s.in.ReadByte()
		if err != nil || b != rest[i] {
			return errNotJSON
		}
		raw.byte(b)
	}
	return nil
}

// number reads a JSON number whose first byte was first.
func (s *stdoutScanner) number(raw *compactJSON, first byte) error {
	digits := func(atLeastOne bool) error {
		n := 0
		for {
			b, err := s.in.ReadByte()
			if err != nil {
				break
			}
			if b < '0' || b > '9' {
				_ = s.in.UnreadByte()
				break
			}
			raw.byte(b)
			n++
		}
		if atLeastOne && n == 0 {
			return errNotJSON
		}
		return nil
	}
	if first == '-' {
		b, err := s.in.ReadByte()
		if err != nil || b < '0' || b > '9' {
			return errNotJSON
		}
		raw.byte(b)
		first = b
	}
	if first != '0' {
		_ = digits(false)
	}
	if s.peekIs('.') {
		raw.byte('.')
		if err := digits(true); err != nil {
			return err
		}
	}
	if s.peekIs('e') || s.peekIs('E') {
		raw.byte('e')
		if s.peekIs('+') {
			raw.byte('+')
		} else if s.peekIs('-') {
			raw.byte('-')
		}
		return digits(true)
	}
	return nil
}

// peekIs consumes the next byte if it is b.
func (s *stdoutScanner) peekIs(b byte) bool {
	next, err := s.in.Peek(1)
	if err != nil || next[0] != b {
		return false
	}
	_, _ = s.in.ReadByte()
	return true
}

// str reads a string after its opening quote, handing each decoded
// character to add as encoding/json decodes it (an invalid UTF-8 byte or a
// lone surrogate is U+FFFD). add also gets the closing quote as -1, and
// the raw text of escapes is not needed: compactJSON re-encodes.
// textSink receives a string's decoded characters, -1 for its closing
// quote. Once full, it ignores the rest, which then only has to be valid
// JSON: str skips it in bulk instead of a character at a time, so a hook
// that prints 64 MiB into one string costs a scan, not a decode.
type textSink interface {
	add(r rune)
	full() bool
}

func (s *stdoutScanner) str(sink textSink) error {
	for {
		if sink.full() {
			s.skipPlainText()
		}
		b, err := s.in.ReadByte()
		switch {
		case err != nil || b < 0x20:
			return errNotJSON
		case b == '"':
			sink.add(-1)
			return nil
		case b == '\\':
			r, err := s.escape()
			if err != nil {
				return err
			}
			sink.add(r)
		case b < utf8.RuneSelf:
			sink.add(rune(b))
		default:
			_ = s.in.UnreadByte()
			r, size, _ := s.in.ReadRune()
			if r == utf8.RuneError && size == 1 {
				r = unicode.ReplacementChar
			}
			sink.add(r)
		}
	}
}

// skipPlainText discards the bytes of a string up to the next one that
// matters to its validity or its end: a quote, a backslash or a control
// character.
func (s *stdoutScanner) skipPlainText() {
	for {
		if s.in.Buffered() == 0 {
			if _, err := s.in.Peek(1); err != nil {
				return // the next read reports it
			}
		}
		buf, _ := s.in.Peek(s.in.Buffered())
		i := 0
		for i < len(buf) && buf[i] >= 0x20 && buf[i] != '"' && buf[i] != '\\' {
			i++
		}
		_, _ = s.in.Discard(i)
		if i < len(buf) {
			return
		}
	}
}

var simpleEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (s *stdoutScanner) escape() (rune, error) {
	b, err := s.in.ReadByte()
	if err != nil {
		return 0, errNotJSON
	}
	if r, ok := simpleEscapes[b]; ok {
		return r, nil
	}
	if b != 'u' {
		return 0, errNotJSON
	}
	r, err := s.hex4()
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	// A surrogate pairs only with an immediately following \uXXXX escape;
	// anything else leaves the next characters for the caller.
	if next, err := s.in.Peek(6); err == nil && next[0] == '\\' && next[1] == 'u' {
		if r2, ok := parseHex4(next[2:6]); ok {
			if pair := utf16.DecodeRune(r, r2); pair != unicode.ReplacementChar {
				_, _ = s.in.Discard(6)
				return pair, nil
			}
		}
	}
	return unicode.ReplacementChar, nil
}

func (s *stdoutScanner) hex4() (rune, error) {
	var buf [4]byte
	if _, err := io.ReadFull(s.in, buf[:]); err != nil {
		return 0, errNotJSON
	}
	r, ok := parseHex4(buf[:])
	if !ok {
		return 0, errNotJSON
	}
	return r, nil
}

func parseHex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// boundedText keeps a string's first limit bytes and whether it had more.
type boundedText struct {
	b     strings.Builder
	limit int
	over  bool
}

func (t *boundedText) full() bool { return t.over }

func (t *boundedText) add(r rune) {
	if r < 0 || t.over {
		return
	}
	if t.b.Len()+utf8.RuneLen(r) > t.limit {
		t.over = true
		return
	}
	t.b.WriteRune(r)
}

// sanitizedText keeps what sanitize would keep of a string: control
// characters dropped, leading spaces dropped, then maxTextChars
// characters, and whether anything but spaces follows them.
type sanitizedText struct {
	b    strings.Builder
	n    int
	more bool
}

func (t *sanitizedText) full() bool { return t.more }

func (t *sanitizedText) add(r rune) {
	switch {
	case r < 0 || unicode.IsControl(r) || (t.n == 0 && unicode.IsSpace(r)):
	case t.n < maxTextChars:
		t.b.WriteRune(r)
		t.n++
	case !unicode.IsSpace(r):
		t.more = true
	}
}

// String is a text sanitize turns into the same result as the whole one.
func (t *sanitizedText) String() string {
	if t.more {
		return t.b.String() + "x" // any non-space character: sanitize truncates and marks
	}
	return t.b.String()
}

// compactJSON collects a value's text without insignificant whitespace,
// up to limit bytes. A nil *compactJSON collects nothing.
type compactJSON struct {
	b     strings.Builder
	limit int
	over  bool
}

func (c *compactJSON) byte(b byte) {
	if c == nil || c.over {
		return
	}
	if c.b.Len()+1 > c.limit {
		c.over = true
		return
	}
	c.b.WriteByte(b)
}

func (c *compactJSON) full() bool { return c == nil || c.over }

// add adds one decoded character of a string, re-encoded as JSON; -1 is
// the closing quote.
func (c *compactJSON) add(r rune) {
	if c == nil || c.over {
		return
	}
	var buf [utf8.UTFMax + 2]byte
	enc := buf[:0]
	switch {
	case r < 0:
		enc = append(enc, '"')
	case r == '"' || r == '\\':
		enc = append(enc, '\\', byte(r))
	case r < 0x20:
		enc = append(enc, '\\', 'u', '0', '0', "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
	default:
		enc = utf8.AppendRune(enc, r)
	}
	if c.b.Len()+len(enc) > c.limit {
		c.over = true
		return
	}
	c.b.Write(enc)
}

func quote(s string) string {
	b, _ := json.Marshal(s) // a valid UTF-8 string always encodes
	return string(b)
}
