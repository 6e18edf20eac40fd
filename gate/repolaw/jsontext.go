package repolaw

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// This file is a small JSON parser that keeps the byte span of every key and
// value, which encoding/json cannot report, so problems can underline the
// exact text. It accepts what serde_json accepts and nothing more: no
// comments, no trailing commas, no BOM, no leading zeros, no raw control
// characters in strings, at most 127 levels of nesting.

type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

type jsonValue struct {
	kind jsonKind
	span problem.Span
	// text is the decoded string of a string, the raw text of a number, or
	// "true"/"false".
	text string
	// loneSurrogate marks a string with an unpaired \uD800-\uDFFF escape:
	// serde_json skips such a string inside an ignored value but refuses to
	// decode it into a field.
	loneSurrogate bool
	elems         []jsonValue
	members       []jsonMember
}

type jsonMember struct {
	key   jsonValue // always a string
	value jsonValue
}

// jsonSyntaxError is the first offending byte and what was expected there.
type jsonSyntaxError struct {
	offset int
	msg    string
}

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.offset, e.msg) }

// maxJSONDepth is serde_json's recursion limit: 128 counts down to zero.
const maxJSONDepth = 127

func parseJSON(data []byte) (jsonValue, *jsonSyntaxError) {
	if !utf8.Valid(data) {
		return jsonValue{}, &jsonSyntaxError{offset: firstInvalidUTF8(data), msg: "the file is not valid UTF-8"}
	}
	p := &jsonParser{data: data}
	v, err := p.value(0)
	if err != nil {
		return jsonValue{}, err
	}
	p.skipSpace()
	if p.pos < len(data) {
		return jsonValue{}, p.fail("trailing characters after the JSON value")
	}
	return v, nil
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

type jsonParser struct {
	data []byte
	pos  int
}

func (p *jsonParser) fail(msg string) *jsonSyntaxError {
	return &jsonSyntaxError{offset: p.pos, msg: msg}
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (jsonValue, *jsonSyntaxError) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return jsonValue{}, p.fail("unexpected end of input while expecting a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return jsonValue{}, p.fail("nesting is deeper than serde_json's recursion limit")
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case c == '"':
		return p.string()
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case c == 't':
		return p.word("true", jsonBool)
	case c == 'f':
		return p.word("false", jsonBool)
	case c == 'n':
		return p.word("null", jsonNull)
	default:
		return jsonValue{}, p.fail("expected a value")
	}
}

func (p *jsonParser) word(w string, kind jsonKind) (jsonValue, *jsonSyntaxError) {
	start := p.pos
	for i := 0; i < len(w); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != w[i] {
			return jsonValue{}, p.fail(fmt.Sprintf("expected %q", w))
		}
		p.pos++
	}
	return jsonValue{kind: kind, span: problem.Span{Start: start, End: p.pos}, text: w}, nil
}

func (p *jsonParser) digits() int {
	n := 0
	for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

func (p *jsonParser) number() (jsonValue, *jsonSyntaxError) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
		if p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
			return jsonValue{}, p.fail("invalid number: leading zero")
		}
	case p.digits() == 0:
		return jsonValue{}, p.fail("invalid number: expected a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return jsonValue{}, p.fail("invalid number: expected a digit after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return jsonValue{}, p.fail("invalid number: expected an exponent digit")
		}
	}
	return jsonValue{kind: jsonNumber, span: problem.Span{Start: start, End: p.pos}, text: string(p.data[start:p.pos])}, nil
}

var simpleEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (p *jsonParser) string() (jsonValue, *jsonSyntaxError) {
	start := p.pos
	p.pos++ // opening quote
	var b strings.Builder
	lone := false
	for {
		if p.pos >= len(p.data) {
			return jsonValue{}, p.fail("unexpected end of input inside a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return jsonValue{kind: jsonString, span: problem.Span{Start: start, End: p.pos}, text: b.String(), loneSurrogate: lone}, nil
		case c < 0x20:
			return jsonValue{}, p.fail("control character inside a string (write it as an escape)")
		case c == '\\':
			r, isLone, err := p.escape()
			if err != nil {
				return jsonValue{}, err
			}
			lone = lone || isLone
			b.WriteRune(r)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

// escape decodes the escape at p.pos, pairing a \u surrogate with the
// following one when they form a pair.
func (p *jsonParser) escape() (r rune, lone bool, err *jsonSyntaxError) {
	p.pos++ // backslash
	if p.pos >= len(p.data) {
		return 0, false, p.fail("unexpected end of input inside an escape")
	}
	c := p.data[p.pos]
	if r, ok := simpleEscapes[c]; ok {
		p.pos++
		return r, false, nil
	}
	if c != 'u' {
		return 0, false, p.fail("invalid escape")
	}
	p.pos++
	high, err := p.hex4()
	if err != nil {
		return 0, false, err
	}
	if !utf16.IsSurrogate(high) {
		return high, false, nil
	}
	if high < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		low, err := p.hex4()
		if err != nil {
			return 0, false, err
		}
		if pair := utf16.DecodeRune(high, low); pair != utf8.RuneError {
			return pair, false, nil
		}
		p.pos = save // the next escape stands on its own
	}
	return utf8.RuneError, true, nil
}

func (p *jsonParser) hex4() (rune, *jsonSyntaxError) {
	var r rune
	for range 4 {
		if p.pos >= len(p.data) {
			return 0, p.fail("unexpected end of input inside a \\u escape")
		}
		c := p.data[p.pos]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.fail("invalid \\u escape: expected a hex digit")
		}
		r = r<<4 | rune(d)
		p.pos++
	}
	return r, nil
}

func (p *jsonParser) array(depth int) (jsonValue, *jsonSyntaxError) {
	v := jsonValue{kind: jsonArray, span: problem.Span{Start: p.pos}}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		v.span.End = p.pos
		return v, nil
	}
	for {
		elem, err := p.value(depth)
		if err != nil {
			return jsonValue{}, err
		}
		v.elems = append(v.elems, elem)
		closed, err := p.separator(']')
		if err != nil {
			return jsonValue{}, err
		}
		if closed {
			v.span.End = p.pos
			return v, nil
		}
	}
}

func (p *jsonParser) object(depth int) (jsonValue, *jsonSyntaxError) {
	v := jsonValue{kind: jsonObject, span: problem.Span{Start: p.pos}}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		v.span.End = p.pos
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jsonValue{}, p.fail("unexpected end of input while expecting a key")
		}
		if p.data[p.pos] != '"' {
			return jsonValue{}, p.fail("expected a string key")
		}
		key, err := p.string()
		if err != nil {
			return jsonValue{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return jsonValue{}, p.fail("expected ':' after the key")
		}
		p.pos++
		val, err := p.value(depth)
		if err != nil {
			return jsonValue{}, err
		}
		v.members = append(v.members, jsonMember{key: key, value: val})
		closed, err := p.separator('}')
		if err != nil {
			return jsonValue{}, err
		}
		if closed {
			v.span.End = p.pos
			return v, nil
		}
	}
}

// separator consumes the `,` or closing bracket after an element and
// reports whether the container ended. A comma right before the closing
// bracket is the trailing comma serde_json rejects.
func (p *jsonParser) separator(closing byte) (bool, *jsonSyntaxError) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.fail(fmt.Sprintf("unexpected end of input: expected ',' or '%c'", closing))
	}
	switch p.data[p.pos] {
	case closing:
		p.pos++
		return true, nil
	case ',':
		comma := p.pos
		p.pos++
		p.skipSpace()
		if p.pos < len(p.data) && p.data[p.pos] == closing {
			return false, &jsonSyntaxError{offset: comma, msg: "trailing comma"}
		}
		return false, nil
	default:
		return false, p.fail(fmt.Sprintf("expected ',' or '%c'", closing))
	}
}
