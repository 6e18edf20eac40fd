package install

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// node is one JSON value of a settings file with its byte span, so that
// an edit can insert or cut text without re-encoding anything else.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for a number, true, false or null
	start, end int  // src[start:end] is the value's text
	members    []member
	elems      []*node
}

// member is one "key": value of an object; start is the key's opening
// quote, so src[start:value.end] is the whole member.
type member struct {
	key   string
	start int
	value *node
}

// item is a member or an element: the span an edit inserts or removes.
type item struct{ start, end int }

func (n *node) items() []item {
	var out []item
	for _, m := range n.members {
		out = append(out, item{m.start, m.value.end})
	}
	for _, e := range n.elems {
		out = append(out, item{e.start, e.end})
	}
	return out
}

// member returns the last member named key (the one JSON parsers keep).
func (n *node) member(key string) (member, bool) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i], true
		}
	}
	return member{}, false
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 512

// SyntaxError says where a settings file stops being JSON (with the
// comments and trailing commas the agents' JSONC readers accept).
type SyntaxError struct {
	Line, Column, Byte int // 1-based line and column (bytes); 0-based byte offset
	Msg                string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d (byte %d): %s", e.Line, e.Column, e.Byte, e.Msg)
}

// parseJSONC parses src tolerantly: // and /* */ comments, trailing commas
// and a UTF-8 byte order mark are accepted; anything else that is not
// JSON is a *SyntaxError.
func parseJSONC(src []byte) (*node, error) {
	p := &parser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.fail("unexpected text after the JSON value")
	}
	return v, nil
}

type parser struct {
	src []byte
	pos int
}

func (p *parser) fail(msg string) error {
	line, col := problem.NewLines(p.src).Bytes(p.pos)
	return &SyntaxError{Line: line + 1, Column: col + 1, Byte: p.pos, Msg: msg}
}

// skip passes whitespace and comments.
func (p *parser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case bytes.HasPrefix(p.src[p.pos:], []byte("//")):
			end := bytes.IndexByte(p.src[p.pos:], '\n')
			if end < 0 {
				p.pos = len(p.src)
			} else {
				p.pos += end
			}
		case bytes.HasPrefix(p.src[p.pos:], []byte("/*")):
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.fail("unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.fail(fmt.Sprintf("nested deeper than %d", maxDepth))
	}
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of file, a value was expected")
	}
	switch c := p.src[p.pos]; c {
	case '{', '[':
		return p.container(c, depth)
	case '"':
		start := p.pos
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.pos}, nil
	}
	start := p.pos
	for p.pos < len(p.src) && bytes.IndexByte([]byte("+-.0123456789eEtruefalsn"), p.src[p.pos]) >= 0 {
		p.pos++
	}
	var v any
	if p.pos == start || json.Unmarshal(p.src[start:p.pos], &v) != nil {
		p.pos = start
		return nil, p.fail("a value was expected")
	}
	return &node{kind: 'v', start: start, end: p.pos}, nil
}

// str reads a string literal at p.pos and returns its decoded value.
func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.fail("invalid string")
			}
			return s, nil
		case '\n':
			p.pos = start
			return "", p.fail("unterminated string")
		}
		p.pos++
	}
	p.pos = start
	return "", p.fail("unterminated string")
}

func (p *parser) container(open byte, depth int) (*node, error) {
	n := &node{kind: open, start: p.pos}
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == closer {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if len(n.members)+len(n.elems) > 0 {
			if p.pos >= len(p.src) || p.src[p.pos] != ',' {
				return nil, p.fail(fmt.Sprintf("',' or '%c' expected", closer))
			}
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == closer { // trailing comma
				continue
			}
		}
		if open == '[' {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			continue
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.fail("a quoted key was expected")
		}
		keyStart := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("':' expected after the key")
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, start: keyStart, value: v})
	}
}

// plain is n's value as encoding/json decodes it (comments and trailing
// commas dropped), for comparing an entry with ours whatever its format.
func (n *node) plain(src []byte) any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.members))
		for _, mem := range n.members {
			m[mem.key] = mem.value.plain(src)
		}
		return m
	case '[':
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.plain(src)
		}
		return a
	}
	var v any
	_ = json.Unmarshal(src[n.start:n.end], &v) // validated by the parser
	return v
}
