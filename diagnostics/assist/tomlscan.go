package assist

import (
	"bytes"
	"strconv"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// This file reads TOML a line at a time. A file being typed is often not
// TOML at all, so where tomldoc.Parse gives up the assistant still wants
// the key under the cursor and the table header above it. The scanner
// knows keys, strings, inline tables and arrays, and stops quietly at
// anything else.

type keyPart struct {
	name string
	span problem.Span
}

func names(parts []keyPart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.name
	}
	return out
}

// scanState is where the scanned text ends, which is what completion
// needs: typing a key of a table, a value of a key, or a table header.
type scanState struct {
	set      bool
	atValue  bool
	inHeader bool
	// path is the table (or inline table) the key goes in, or the key
	// whose value is being typed.
	path    []string
	partial string // what is typed of the key or value so far
	quoted  bool   // the value typed so far opens a string
	// typedFrom is where the typed key or value starts, its opening quote
	// included: a completion replaces the text from there to the cursor.
	typedFrom int
	present   []string
}

type lineScanner struct {
	src   []byte
	pos   int
	end   int
	at    int
	found *spot
	state scanState
}

func (s *lineScanner) skipSpace() {
	for s.pos < s.end && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// quoted reads a string starting at the quote under pos; closed is false
// when the line ends first.
func (s *lineScanner) quoted() (text string, span problem.Span, closed bool) {
	q := s.src[s.pos]
	start := s.pos
	s.pos++
	for s.pos < s.end {
		c := s.src[s.pos]
		if c == '\\' && q == '"' {
			s.pos += 2
			continue
		}
		s.pos++
		if c == q {
			raw := string(s.src[start:s.pos])
			if q == '\'' {
				return raw[1 : len(raw)-1], problem.Span{Start: start, End: s.pos}, true
			}
			if t, err := strconv.Unquote(raw); err == nil {
				return t, problem.Span{Start: start, End: s.pos}, true
			}
			return raw[1 : len(raw)-1], problem.Span{Start: start, End: s.pos}, true
		}
	}
	s.pos = min(s.pos, s.end)
	return string(s.src[start+1 : s.pos]), problem.Span{Start: start, End: s.pos}, false
}

// key reads a dotted key; ok is false when it is incomplete.
func (s *lineScanner) key() (parts []keyPart, ok bool) {
	for {
		s.skipSpace()
		if s.pos >= s.end {
			return parts, false
		}
		var part keyPart
		switch c := s.src[s.pos]; {
		case c == '"' || c == '\'':
			text, span, closed := s.quoted()
			part = keyPart{name: text, span: span}
			if !closed {
				return append(parts, part), false
			}
		case isBareKeyByte(c):
			start := s.pos
			for s.pos < s.end && isBareKeyByte(s.src[s.pos]) {
				s.pos++
			}
			part = keyPart{name: string(s.src[start:s.pos]), span: problem.Span{Start: start, End: s.pos}}
		default:
			return parts, false
		}
		parts = append(parts, part)
		s.skipSpace()
		if s.pos >= s.end || s.src[s.pos] != '.' {
			return parts, true
		}
		s.pos++
	}
}

func (s *lineScanner) noteKey(path []string, parts []keyPart) {
	for i, p := range parts {
		if within(p.span, s.at) {
			s.found = &spot{path: extend(path, names(parts[:i+1])...), span: p.span}
		}
	}
}

func (s *lineScanner) noteValue(path []string, text string, span problem.Span) {
	if within(span, s.at) {
		s.found = &spot{path: path, onValue: true, value: text, span: span}
	}
}

func (s *lineScanner) atEnd() bool { return s.pos >= s.end }

// keyValues reads `key = value` pairs: one for a line, or the members of an
// inline table (whose `{` is already read).
func (s *lineScanner) keyValues(path []string, inline bool) {
	var present []string
	for {
		s.skipSpace()
		if s.atEnd() {
			s.state = scanState{set: true, path: path, present: present, typedFrom: s.pos}
			return
		}
		switch s.src[s.pos] {
		case '#':
			return
		case '}':
			if inline {
				s.pos++
				return
			}
		case ',':
			if inline {
				s.pos++
				continue
			}
		}
		start := s.pos
		parts, ok := s.key()
		s.noteKey(path, parts)
		s.skipSpace()
		if s.atEnd() {
			s.state = scanState{set: true, path: path, partial: string(bytes.TrimSpace(s.src[start:s.pos])), present: present, typedFrom: start}
			return
		}
		if !ok || len(parts) == 0 || s.src[s.pos] != '=' {
			return
		}
		s.pos++
		full := extend(path, names(parts)...)
		present = append(present, parts[0].name)
		s.value(full)
		if !inline || s.state.set {
			return
		}
	}
}

func (s *lineScanner) value(path []string) {
	s.skipSpace()
	if s.atEnd() {
		s.state = scanState{set: true, atValue: true, path: path, typedFrom: s.pos}
		return
	}
	switch c := s.src[s.pos]; c {
	case '"', '\'':
		text, span, closed := s.quoted()
		s.noteValue(path, text, span)
		if !closed {
			s.state = scanState{set: true, atValue: true, path: path, partial: text, quoted: true, typedFrom: span.Start}
		}
	case '{':
		s.pos++
		s.keyValues(path, true)
	case '[':
		s.pos++
		for {
			s.skipSpace()
			if s.atEnd() {
				s.state = scanState{set: true, atValue: true, path: path, typedFrom: s.pos}
				return
			}
			switch s.src[s.pos] {
			case ']':
				s.pos++
				return
			case ',':
				s.pos++
				continue
			}
			before := s.pos
			s.value(path)
			if s.pos == before || s.state.set {
				return
			}
		}
	default:
		start := s.pos
		for s.pos < s.end && !bytes.ContainsRune([]byte(" \t,]}#"), rune(s.src[s.pos])) {
			s.pos++
		}
		text := string(s.src[start:s.pos])
		s.noteValue(path, text, problem.Span{Start: start, End: s.pos})
		if s.atEnd() {
			s.state = scanState{set: true, atValue: true, path: path, partial: text, typedFrom: start}
		}
	}
}

// header reads a `[table]` or `[[array]]` header at the start of a line;
// ok is false when the line is not a complete one. A header cut short by
// the end of the scanned text sets the completion state.
func (s *lineScanner) header() (parts []keyPart, ok bool) {
	s.skipSpace()
	if s.atEnd() || s.src[s.pos] != '[' {
		return nil, false
	}
	s.pos++
	if s.pos < s.end && s.src[s.pos] == '[' {
		s.pos++
	}
	parts, complete := s.key()
	if s.atEnd() {
		partial, from := "", s.end
		if n := len(parts); n > 0 && parts[n-1].span.End == s.end {
			partial, from, parts = parts[n-1].name, parts[n-1].span.Start, parts[:n-1]
		}
		s.state = scanState{set: true, inHeader: true, path: names(parts), partial: partial, typedFrom: from}
		return parts, false
	}
	return parts, complete && len(parts) > 0 && s.src[s.pos] == ']'
}

// headerBrackets is a header's text from its first `[` to its last `]`;
// closing is where the key ended.
func headerBrackets(src []byte, lineStart, closing, lineEnd int) problem.Span {
	open := lineStart
	for open < lineEnd && (src[open] == ' ' || src[open] == '\t') {
		open++
	}
	for closing < lineEnd && src[closing] == ']' {
		closing++
	}
	return problem.Span{Start: open, End: closing}
}

// tableAbove is the table of the nearest header above the line starting at
// lineStart (nil at the top level).
func tableAbove(src []byte, lineStart int) []string {
	for end := lineStart - 1; end >= 0; {
		start := bytes.LastIndexByte(src[:end], '\n') + 1
		s := &lineScanner{src: src, pos: start, end: end, at: -1}
		if parts, ok := s.header(); ok {
			return names(parts)
		}
		end = start - 1
	}
	return nil
}

// scanTOML reads the line holding offset up to stop (the offset itself for
// completion, the line's end for hover).
func scanTOML(src []byte, offset int, stopAtCursor bool) (*spot, scanState) {
	start, end := lineBounds(src, offset)
	if stopAtCursor {
		end = min(max(offset, start), end)
	}
	s := &lineScanner{src: src, pos: start, end: end, at: offset}
	if parts, ok := s.header(); ok || s.state.set {
		s.noteKey(nil, parts)
		if brackets := headerBrackets(src, start, s.pos, end); ok && s.found == nil && within(brackets, offset) {
			s.found = &spot{path: names(parts), span: brackets}
		}
		return s.found, s.state
	}
	s.pos = start
	s.keyValues(tableAbove(src, start), false)
	return s.found, s.state
}

// sectionKeys are the first key components written in the table the line
// at offset belongs to, on other lines than the cursor's.
func sectionKeys(src []byte, offset int) []string {
	cursorStart, _ := lineBounds(src, offset)
	var out []string
	visit := func(start, end int) bool {
		if start == cursorStart {
			return true
		}
		s := &lineScanner{src: src, pos: start, end: end, at: -1}
		if _, ok := s.header(); ok {
			return false
		}
		s.pos = start
		if parts, ok := s.key(); ok && len(parts) > 0 {
			s.skipSpace()
			if !s.atEnd() && s.src[s.pos] == '=' {
				out = append(out, parts[0].name)
			}
		}
		return true
	}
	// Down from the cursor to the next header, then up to the previous one.
	for start := cursorStart; start <= len(src); {
		_, end := lineBounds(src, start)
		if !visit(start, end) {
			break
		}
		start = end + 1
	}
	for end := cursorStart - 1; end >= 0; {
		start := bytes.LastIndexByte(src[:end], '\n') + 1
		if !visit(start, end) {
			break
		}
		end = start - 1
	}
	return out
}
