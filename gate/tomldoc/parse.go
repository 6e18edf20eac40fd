package tomldoc

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Parse validates src as TOML and builds its tree. A syntax error returns a
// nil Doc. A UTF-8 byte order mark at the start is skipped, as Codewhale's
// parser skips it; spans stay byte offsets into src.
func Parse(src []byte) (*Doc, *SyntaxError) {
	text := blankBOM(src)
	b := &builder{src: text, srcText: string(text), root: &TableValue{origin: headerDefined}}
	b.current = b.root
	p := &unstable.Parser{}
	p.Reset(text)
	for p.NextExpression() {
		b.expression(p.Expression())
	}
	if err := p.Error(); err != nil {
		return nil, unstableError(p, err)
	}
	// The builder flags everything BurntSushi might reject; only then is it
	// worth running, to decide and to word the error as it does.
	if b.suspect || !lexicallyPlain(text) {
		var sink map[string]any
		if _, err := toml.Decode(b.srcText, &sink); err != nil {
			return nil, burntSushiError(src, err)
		}
	}
	return &Doc{Src: src, Root: b.root}, nil
}

const utf8BOM = "\uFEFF"

// blankBOM is src with a leading UTF-8 byte order mark, which the unstable
// parser rejects, replaced by three spaces, which TOML ignores there: every
// offset stays that of src, and BurntSushi, which skips a BOM, judges the
// same document.
func blankBOM(src []byte) []byte {
	if !bytes.HasPrefix(src, []byte(utf8BOM)) {
		return src
	}
	return append([]byte("   "), src[len(utf8BOM):]...)
}

func unstableError(p *unstable.Parser, err error) *SyntaxError {
	var pe *unstable.ParserError
	if !errors.As(err, &pe) {
		return &SyntaxError{Message: err.Error()}
	}
	span := problem.Span{}
	if len(pe.Highlight) > 0 {
		r := p.Range(pe.Highlight)
		span = problem.Span{Start: int(r.Offset), End: int(r.Offset + r.Length)}
	} else {
		span = problem.Span{Start: len(p.Data()), End: len(p.Data())}
	}
	return &SyntaxError{Message: pe.Message, Span: span}
}

func burntSushiError(src []byte, err error) *SyntaxError {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &SyntaxError{Message: err.Error()}
	}
	// Only Start/Len are trustworthy (docs/codewhale/deps.md §2); clamp them.
	start := min(max(pe.Position.Start, 0), len(src))
	end := min(start+max(pe.Position.Len, 1), len(src))
	se := &SyntaxError{Message: pe.Message, Span: problem.Span{Start: start, End: end}}
	const dupSuffix = "' has already been defined."
	if strings.HasPrefix(pe.Message, "Key '") && strings.HasSuffix(pe.Message, dupSuffix) {
		key := strings.TrimSuffix(strings.TrimPrefix(pe.Message, "Key '"), dupSuffix)
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			key = key[i+1:]
		}
		se.DuplicateKey = strings.Trim(key, `"'`)
	}
	return se
}

type builder struct {
	src     []byte
	srcText string
	parts   []keyPart
	root    *TableValue
	current *TableValue
	// section numbers the key/values under one header, or of one inline
	// table; sections counts them.
	section, sections int
	// suspect is set by anything BurntSushi might reject.
	suspect bool
}

func rangeSpan(r unstable.Range) problem.Span {
	return problem.Span{Start: int(r.Offset), End: int(r.Offset + r.Length)}
}

type keyPart struct {
	name string
	span problem.Span
}

// keyParts reuses one buffer: callers copy what they keep.
func (b *builder) keyParts(it unstable.Iterator) []keyPart {
	b.parts = b.parts[:0]
	for it.Next() {
		n := it.Node()
		span := rangeSpan(n.Raw)
		b.parts = append(b.parts, keyPart{name: b.text(span, n.Data), span: span})
	}
	return b.parts
}

// text is a key's or string's content as a string. Where the source holds
// it verbatim (bare keys, strings without escapes) it is a slice of the one
// copy of the source, saving an allocation per key and value.
func (b *builder) text(raw problem.Span, data []byte) string {
	s := b.srcText[raw.Start:raw.End]
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	if s == string(data) {
		return s
	}
	return string(data)
}

func (b *builder) expression(e *unstable.Node) {
	switch e.Kind {
	case unstable.Table, unstable.ArrayTable:
		parts := b.keyParts(e.Key())
		if len(parts) == 0 {
			b.suspect = true
			return
		}
		b.sections++
		b.section = b.sections
		b.current = b.descend(b.root, parts, e.Kind == unstable.ArrayTable)
	case unstable.KeyValue:
		b.keyValue(b.current, e, b.section)
	}
}

// descend walks a header's key from the root, creating implicit tables, and
// returns the table the header opens.
func (b *builder) descend(t *TableValue, parts []keyPart, arrayTable bool) *TableValue {
	header := problem.Span{Start: parts[0].span.Start, End: parts[len(parts)-1].span.End}
	for i, part := range parts {
		last := i == len(parts)-1
		e := t.Get(part.name)
		if last && arrayTable {
			elem := &TableValue{ArrayElement: true, origin: headerDefined}
			item := &Value{Kind: Table, Table: elem, Span: header}
			if e != nil && !e.Value.IsArrayOfTables() {
				b.suspect = true
			}
			if e == nil || e.Value.Kind != Array {
				t.put(&Entry{Key: part.name, KeySpan: part.span, Value: &Value{Kind: Array, Span: header, Items: []*Value{item}}})
			} else {
				e.Value.Items = append(e.Value.Items, item)
				e.Value.Span.End = header.End
			}
			return elem
		}
		switch {
		case e == nil:
			made := &TableValue{origin: headerImplicit}
			if last {
				made.origin = headerDefined
			}
			e = &Entry{Key: part.name, KeySpan: part.span, Value: &Value{Kind: Table, Table: made, Span: header}}
			t.put(e)
		case last && headerRedefines(e.Value), !last && !headerPath(e.Value):
			b.suspect = true
		case last:
			e.Value.Table.origin = headerDefined
		}
		t = tableOf(e.Value)
		if t == nil {
			// Invalid TOML (BurntSushi will say why); keep building safely.
			t = &TableValue{}
		}
	}
	return t
}

// tableOf is the table a key path continues into: a table, or the last
// element of an array of tables.
func tableOf(v *Value) *TableValue {
	switch v.Kind {
	case Table:
		return v.Table
	case Array:
		if n := len(v.Items); n > 0 && v.Items[n-1].Kind == Table {
			return v.Items[n-1].Table
		}
	}
	return nil
}

func (b *builder) keyValue(t *TableValue, kv *unstable.Node, section int) {
	parts := b.keyParts(kv.Key())
	if len(parts) == 0 {
		b.suspect = true
		return
	}
	for _, part := range parts[:len(parts)-1] {
		e := t.Get(part.name)
		if e == nil {
			e = &Entry{Key: part.name, KeySpan: part.span, Value: &Value{Kind: Table, Table: &TableValue{origin: dotted, section: section}, Span: part.span}}
			t.put(e)
		} else if !dottedPath(e.Value, section) {
			b.suspect = true
		}
		next := tableOf(e.Value)
		if next == nil {
			return
		}
		t = next
	}
	last := parts[len(parts)-1]
	if t.Get(last.name) != nil {
		b.suspect = true
	}
	valueStart := afterEquals(b.src, last.span.End)
	v := b.value(kv.Value(), valueStart, int(kv.Raw.Offset+kv.Raw.Length))
	t.put(&Entry{Key: last.name, KeySpan: last.span, Value: v})
}

// afterEquals finds where a value starts: past the `=` that follows its key.
func afterEquals(src []byte, from int) int {
	i := from
	for i < len(src) && src[i] != '=' {
		i++
	}
	i++
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return min(i, len(src))
}

// value converts a value node. Containers have no range of their own in the
// unstable AST, so their span runs from start to end as the caller knows it.
func (b *builder) value(n *unstable.Node, start, end int) *Value {
	switch n.Kind {
	case unstable.Array:
		v := &Value{Kind: Array, Span: problem.Span{Start: start, End: end}}
		next := start + 1 // past the '['
		it := n.Children()
		for it.Next() {
			c := it.Node()
			cs, ce := b.childSpan(c, next)
			item := b.value(c, cs, ce)
			v.Items = append(v.Items, item)
			next = item.Span.End
		}
		v.Span.End = max(v.Span.End, closing(b.src, start, ']'))
		return v
	case unstable.InlineTable:
		t := &TableValue{Inline: true, origin: headerDefined}
		b.sections++
		section := b.sections
		it := n.Children()
		for it.Next() {
			b.keyValue(t, it.Node(), section)
		}
		return &Value{Kind: Table, Table: t, Span: problem.Span{Start: start, End: max(end, closing(b.src, start, '}'))}}
	}
	span := rangeSpan(n.Raw)
	v := &Value{Span: span, Raw: b.srcText[span.Start:span.End]}
	data := b.text(span, n.Data)
	switch n.Kind {
	case unstable.String:
		v.Kind, v.Str = String, data
	case unstable.Bool:
		v.Kind, v.Bool = Bool, data == "true"
	case unstable.Integer:
		v.Kind = Integer
		v.Int, _ = strconv.ParseInt(strings.ReplaceAll(data, "_", ""), 0, 64)
		b.suspect = b.suspect || !integerAcceptable(v.Raw)
	case unstable.Float:
		v.Kind, v.Float = Float, parseFloat(data)
		b.suspect = b.suspect || !floatAcceptable(v.Raw)
	default:
		v.Kind, v.Str = Datetime, data
		b.suspect = b.suspect || !datetimeAcceptable(v.Raw)
	}
	return v
}

// childSpan is the span of an array element that starts at or after from
// (the end of the previous element, or just past the array's '['): scalars
// carry their range; a nested container, which has none, runs from the
// next bracket to the one closing it, empty or not.
func (b *builder) childSpan(n *unstable.Node, from int) (int, int) {
	switch n.Kind {
	case unstable.Array:
		start := elementStart(b.src, from)
		return start, closing(b.src, start, ']')
	case unstable.InlineTable:
		start := elementStart(b.src, from)
		return start, closing(b.src, start, '}')
	}
	s := rangeSpan(n.Raw)
	return s.Start, s.End
}

// elementStart skips what may separate array elements (whitespace,
// newlines, the comma, comments) from from on.
func elementStart(src []byte, from int) int {
	for i := from; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\r', '\n', ',':
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return len(src)
}

// closing finds the bracket that closes the one at or after start, skipping
// strings and nested brackets; it returns the offset just past it.
func closing(src []byte, start int, close byte) int {
	open := byte('[')
	if close == '}' {
		open = '{'
	}
	depth := 0
	for i := start; i < len(src); i++ {
		switch c := src[i]; c {
		case '"', '\'':
			i = skipString(src, i)
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}

func skipString(src []byte, i int) int {
	q := src[i]
	triple := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	if triple {
		for j := i + 3; j+2 < len(src); j++ {
			if q == '"' && src[j] == '\\' {
				j++
				continue
			}
			if src[j] == q && src[j+1] == q && src[j+2] == q {
				return j + 2
			}
		}
		return len(src)
	}
	for j := i + 1; j < len(src); j++ {
		if q == '"' && src[j] == '\\' {
			j++
			continue
		}
		if src[j] == q || src[j] == '\n' {
			return j
		}
	}
	return len(src)
}

func parseFloat(s string) float64 {
	s = strings.ReplaceAll(s, "_", "")
	switch strings.TrimLeft(s, "+-") {
	case "inf":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case "nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
