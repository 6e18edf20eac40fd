package assist

import (
	"bytes"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// section is a table header and the lines under it, as the line scanner
// sees a file that does not parse.
type section struct {
	path   []string
	array  bool
	header problem.Span
	span   problem.Span
	values map[string]string
}

func sections(src []byte) []section {
	var out []section
	for start := 0; start <= len(src); {
		_, end := lineBounds(src, start)
		s := &lineScanner{src: src, pos: start, end: end, at: -1}
		if parts, ok := s.header(); ok {
			out = append(out, section{
				path:   names(parts),
				array:  bytes.HasPrefix(bytes.TrimLeft(src[start:end], " \t"), []byte("[[")),
				header: problem.Span{Start: parts[0].span.Start, End: parts[len(parts)-1].span.End},
				span:   problem.Span{Start: start, End: end},
				values: map[string]string{},
			})
		} else if n := len(out); n > 0 {
			s.pos = start
			if key, value, ok := s.keyAndScalar(); ok {
				out[n-1].values[key] = value
				out[n-1].span.End = end
			}
		}
		start = end + 1
	}
	return out
}

// keyAndScalar reads a `key = scalar` line.
func (s *lineScanner) keyAndScalar() (key, value string, ok bool) {
	parts, ok := s.key()
	if !ok || len(parts) != 1 {
		return "", "", false
	}
	s.skipSpace()
	if s.atEnd() || s.src[s.pos] != '=' {
		return "", "", false
	}
	s.pos++
	s.skipSpace()
	if s.atEnd() {
		return "", "", false
	}
	if c := s.src[s.pos]; c == '"' || c == '\'' {
		text, _, _ := s.quoted()
		return parts[0].name, text, true
	}
	raw := strings.TrimSpace(string(s.src[s.pos:s.end]))
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = strings.TrimSpace(raw[:i])
	}
	return parts[0].name, raw, true
}

// sectionSymbols is the outline of a TOML file that does not parse: one
// symbol per header, named as the parsed outline would name it.
func sectionSymbols(schema string, src []byte) []Symbol {
	var out []Symbol
	counts := map[string]int{}
	for _, sec := range sections(src) {
		joined := strings.Join(sec.path, ".")
		switch {
		case schema == "permissions" && joined != "rules", schema == "hooks" && joined != "hooks":
			continue
		}
		var s Symbol
		if sec.array {
			values := sec.values
			s = entrySymbol(sec.path, counts[joined], func(k string) (string, bool) { v, ok := values[k]; return v, ok })
			counts[joined]++
		} else {
			s = Symbol{Name: joined, Kind: SymbolTable}
		}
		s.Span, s.SelectionSpan = sec.span, sec.header
		out = append(out, s)
	}
	return out
}
