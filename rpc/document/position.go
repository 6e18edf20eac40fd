package document

import (
	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Mapper converts between byte offsets of one text and LSP positions in the
// encoding negotiated at initialize: UTF-16 code units (the LSP default) or
// UTF-8 bytes.
type Mapper struct {
	lines    *problem.Lines
	text     []byte
	encoding protocol.PositionEncodingKind
}

// NewMapper indexes text for positions in encoding; anything but utf-8
// counts as utf-16, the encoding every client must understand.
func NewMapper(text []byte, encoding protocol.PositionEncodingKind) Mapper {
	return Mapper{lines: problem.NewLines(text), text: text, encoding: encoding}
}

// Position is the LSP position of byte offset off.
func (m Mapper) Position(off int) protocol.Position {
	var line, col int
	if m.encoding == protocol.PositionEncodingKindUTF8 {
		line, col = m.lines.Bytes(off)
	} else {
		line, col = m.lines.UTF16(off)
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// Range is the LSP range of a byte span.
func (m Mapper) Range(s problem.Span) protocol.Range {
	return protocol.Range{Start: m.Position(s.Start), End: m.Position(max(s.End, s.Start))}
}

// Offset is the byte offset of an LSP position. As the LSP requires, a
// character past the end of its line means the end of the line, and a line
// past the end of the text means the end of the text.
func (m Mapper) Offset(p protocol.Position) int {
	line := int(p.Line)
	if m.encoding != protocol.PositionEncodingKindUTF8 {
		return m.lines.Offset(line, int(p.Character))
	}
	start := m.lines.Offset(line, 0)
	end := start
	for end < len(m.text) && m.text[end] != '\n' {
		end++
	}
	return min(start+int(p.Character), end)
}

// Span is the byte span of an LSP range; ok is false when the range ends
// before it starts.
func (m Mapper) Span(r protocol.Range) (problem.Span, bool) {
	s := problem.Span{Start: m.Offset(r.Start), End: m.Offset(r.End)}
	return s, s.Start <= s.End
}
