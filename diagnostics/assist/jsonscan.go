package assist

import (
	"bytes"
	"encoding/json"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// This file is a tolerant JSON reader for constitution.json as it is being
// typed: it keeps the span of every key and value, and where the text is
// broken it skips a byte and reads on instead of failing. (repolaw's parser
// is exact and strict, as Codewhale's is; an editor needs the opposite.)

type jsonNode struct {
	kind    byte // '{', '[', '"', or 0 for another scalar
	span    problem.Span
	closed  bool   // the object or array has its closing bracket
	text    string // a string's decoded text, another scalar's source
	members []jsonMember
	elems   []*jsonNode
}

type jsonMember struct {
	key     string
	keySpan problem.Span
	colon   int       // -1 when not written yet
	value   *jsonNode // nil when not written yet
}

// maxJSONNesting keeps hostile input from exhausting the stack.
const maxJSONNesting = 64

type jsonScanner struct {
	src []byte
	pos int
}

func parseTolerantJSON(src []byte) *jsonNode {
	s := &jsonScanner{src: src}
	for s.skipSpace(); s.pos < len(src); s.skipSpace() {
		before := s.pos
		if n := s.value(0); n != nil && n.kind == '{' {
			return n
		}
		if s.pos == before {
			s.pos++
		}
	}
	return nil
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) value(depth int) *jsonNode {
	s.skipSpace()
	if s.pos >= len(s.src) {
		return nil
	}
	switch c := s.src[s.pos]; {
	case (c == '{' || c == '[') && depth < maxJSONNesting:
		return s.container(c, depth)
	case c == '"':
		return s.str()
	}
	start := s.pos
	for s.pos < len(s.src) && !isJSONDelimiter(s.src[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return nil
	}
	return &jsonNode{span: problem.Span{Start: start, End: s.pos}, text: string(s.src[start:s.pos])}
}

func isJSONDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

// str reads a string; an unterminated one ends at the end of its line.
func (s *jsonScanner) str() *jsonNode {
	start := s.pos
	s.pos++
	for s.pos < len(s.src) && s.src[s.pos] != '\n' {
		switch s.src[s.pos] {
		case '\\':
			s.pos++
		case '"':
			s.pos++
			n := &jsonNode{kind: '"', span: problem.Span{Start: start, End: s.pos}}
			if json.Unmarshal(s.src[start:s.pos], &n.text) != nil {
				n.text = string(s.src[start+1 : s.pos-1])
			}
			return n
		}
		s.pos++
	}
	s.pos = min(s.pos, len(s.src))
	return &jsonNode{kind: '"', span: problem.Span{Start: start, End: s.pos}, text: string(s.src[start+1 : s.pos])}
}

func (s *jsonScanner) container(open byte, depth int) *jsonNode {
	n := &jsonNode{kind: open, span: problem.Span{Start: s.pos}}
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	s.pos++
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			n.span.End = s.pos
			return n
		}
		switch c := s.src[s.pos]; {
		case c == closing:
			s.pos++
			n.span.End, n.closed = s.pos, true
			return n
		case c == ',':
			s.pos++
		case open == '{' && c == '"':
			n.members = append(n.members, s.member(depth))
		case open == '{' && (c == '{' || c == '['):
			// A value where a key belongs: this object was left open and
			// the next one has begun.
			n.span.End = s.pos
			return n
		case open == '[':
			before := s.pos
			if v := s.value(depth + 1); v != nil {
				n.elems = append(n.elems, v)
			}
			if s.pos == before {
				s.pos++
			}
		default:
			s.pos++ // not JSON here: skip it and read on
		}
	}
}

func (s *jsonScanner) member(depth int) jsonMember {
	key := s.str()
	m := jsonMember{key: key.text, keySpan: key.span, colon: -1}
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == ':' {
		m.colon = s.pos
		s.pos++
		m.value = s.value(depth + 1)
	}
	return m
}

// jsonSpot is the key or scalar value at offset.
func jsonSpot(n *jsonNode, path []string, offset int) *spot {
	if n == nil {
		return nil
	}
	switch n.kind {
	case '{':
		for _, m := range n.members {
			p := extend(path, m.key)
			if within(m.keySpan, offset) {
				return &spot{path: p, span: m.keySpan}
			}
			if sp := jsonSpot(m.value, p, offset); sp != nil {
				return sp
			}
		}
	case '[':
		for _, e := range n.elems {
			if sp := jsonSpot(e, path, offset); sp != nil {
				return sp
			}
		}
	default:
		if within(n.span, offset) {
			return &spot{path: path, onValue: true, value: n.text, span: n.span}
		}
	}
	return nil
}

// jsonState is the completion context at offset: typing a key of the
// innermost object around it, or the value of one of its keys.
func jsonState(src []byte, n *jsonNode, path []string, offset int) scanState {
	if n == nil || offset <= n.span.Start || n.closed && offset >= n.span.End {
		return scanState{}
	}
	if n.kind == '[' {
		for _, e := range n.elems {
			if st := jsonState(src, e, path, offset); st.set {
				return st
			}
		}
		return scanState{}
	}
	if n.kind != '{' {
		return scanState{}
	}
	st := scanState{set: true, path: path, typedFrom: offset}
	for _, m := range n.members {
		st.present = append(st.present, m.key)
	}
	for i, m := range n.members {
		regionEnd := n.span.End
		if i+1 < len(n.members) {
			regionEnd = n.members[i+1].keySpan.Start
		}
		if offset < m.keySpan.Start || offset > regionEnd {
			continue
		}
		p := extend(path, m.key)
		v := m.value
		switch {
		case offset <= m.keySpan.Start:
			return st
		case offset < m.keySpan.End || offset == m.keySpan.End && !closedString(src, m.keySpan):
			st.partial, st.quoted, st.typedFrom = string(src[m.keySpan.Start+1:offset]), true, m.keySpan.Start
			return st
		case m.colon < 0 || offset <= m.colon:
			return scanState{}
		case v == nil:
			return scanState{set: true, atValue: true, path: p, typedFrom: offset}
		case offset < v.span.Start:
			return scanState{}
		case v.kind == '{' || v.kind == '[':
			if !v.closed || offset < v.span.End {
				return jsonState(src, v, p, offset)
			}
		case offset <= v.span.End:
			partial := string(src[v.span.Start:offset])
			quoted := v.kind == '"' && offset > v.span.Start
			if quoted {
				partial = partial[1:]
				if closedString(src, v.span) && offset == v.span.End {
					return scanState{}
				}
			}
			return scanState{set: true, atValue: true, path: p, partial: partial, quoted: quoted, typedFrom: v.span.Start}
		}
		if bytes.IndexByte(src[v.span.End:offset], ',') >= 0 {
			return st
		}
		return scanState{}
	}
	return st
}

// closedString reports whether the string token at span has its closing
// quote.
func closedString(src []byte, span problem.Span) bool {
	return span.End-span.Start >= 2 && src[span.End-1] == '"'
}
