package document

import (
	"testing"

	"go.lsp.dev/protocol"
)

func at(sl, sc, el, ec uint32, text string) *protocol.TextDocumentContentChangePartial {
	return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{
		Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}, Text: text}
}

func TestApply(t *testing.T) {
	const utf8, utf16 = protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16
	for _, c := range []struct {
		name, text string
		enc        protocol.PositionEncodingKind
		changes    []protocol.TextDocumentContentChangeEvent
		want       string
		fails      bool
	}{
		{name: "full replacement", text: "a", enc: utf16, changes: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "b"}}, want: "b"},
		{name: "after an astral character in UTF-16", text: "x = \"🐳\"\n", enc: utf16, changes: []protocol.TextDocumentContentChangeEvent{at(0, 7, 0, 7, "!")}, want: "x = \"🐳!\"\n"},
		{name: "after an astral character in UTF-8", text: "x = \"🐳\"\n", enc: utf8, changes: []protocol.TextDocumentContentChangeEvent{at(0, 9, 0, 9, "!")}, want: "x = \"🐳!\"\n"},
		{name: "replace across lines", text: "a\nb\nc\n", enc: utf16, changes: []protocol.TextDocumentContentChangeEvent{at(0, 1, 2, 0, "-")}, want: "a-c\n"},
		{name: "changes apply in order", text: "ab", enc: utf16, changes: []protocol.TextDocumentContentChangeEvent{at(0, 0, 0, 1, "日本"), at(0, 2, 0, 3, "B")}, want: "日本B"},
		{name: "past the end of a line clamps to it", text: "ab\ncd", enc: utf16, changes: []protocol.TextDocumentContentChangeEvent{at(0, 99, 0, 99, "!")}, want: "ab!\ncd"},
		{name: "past the end of the text clamps to it", text: "ab", enc: utf8, changes: []protocol.TextDocumentContentChangeEvent{at(7, 0, 9, 0, "!")}, want: "ab!"},
		{name: "reversed range", text: "abc", enc: utf16, changes: []protocol.TextDocumentContentChangeEvent{at(0, 2, 0, 1, "")}, fails: true},
	} {
		got, err := Apply([]byte(c.text), c.changes, c.enc)
		if c.fails {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestMapperRoundTrip(t *testing.T) {
	text := []byte("a = \"🐳日\"\nb = 1\n")
	for _, enc := range []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16} {
		m := NewMapper(text, enc)
		for off := 0; off <= len(text); off++ {
			if !utf8Start(text, off) {
				continue
			}
			if got := m.Offset(m.Position(off)); got != off {
				t.Errorf("%s: offset %d → %v → %d", enc, off, m.Position(off), got)
			}
		}
	}
	if p := NewMapper(text, protocol.PositionEncodingKindUTF16).Position(len("a = \"🐳")); p.Character != 7 {
		t.Errorf("UTF-16 column after 🐳 = %d, want 7", p.Character)
	}
}

func utf8Start(b []byte, off int) bool { return off == len(b) || b[off]&0xC0 != 0x80 }

func TestStoreChangeIsAtomic(t *testing.T) {
	s := NewStore()
	s.Open(&Document{URI: "file:///p.toml", Version: 1, Text: []byte("abc")})
	if _, err := s.Change("file:///p.toml", 2, []protocol.TextDocumentContentChangeEvent{at(0, 0, 0, 1, "x"), at(0, 2, 0, 1, "")}, protocol.PositionEncodingKindUTF16); err == nil {
		t.Fatal("a reversed range applied")
	}
	if d, _ := s.Get("file:///p.toml"); string(d.Text) != "abc" || d.Version != 1 {
		t.Errorf("after a failed change: %q v%d", d.Text, d.Version)
	}
}
