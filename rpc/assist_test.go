package rpc

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestAssist: hover, outline and completion reach diagnostics/assist and
// come back as protocol values with ranges in the document.
func TestAssist(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)
	u := s.open(w.permissionsPath(), 1, "[[rules]]\ntool = \"exec_shell\"\naction = \"deny\"\n\n")
	doc := protocol.TextDocumentIdentifier{URI: u}

	h, err := s.server.Hover(s.ctx(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: 2, Character: 2}}})
	if err != nil || h == nil {
		t.Fatalf("hover on `action`: %+v, %v", h, err)
	}
	if mc, ok := h.Contents.(*protocol.MarkupContent); !ok || mc.Value == "" || h.Range == nil || h.Range.Start.Line != 2 {
		t.Errorf("hover = %+v", h)
	}

	syms, err := s.server.DocumentSymbol(s.ctx(), &protocol.DocumentSymbolParams{TextDocument: doc})
	if list, ok := syms.(protocol.DocumentSymbolSlice); err != nil || !ok || len(list) == 0 || list[0].Range.Start.Line != 0 {
		t.Errorf("documentSymbol = %#v, %v", syms, err)
	}

	res, err := s.server.Completion(s.ctx(), &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: 3, Character: 0}}})
	if list, ok := res.(*protocol.CompletionList); err != nil || !ok || len(list.Items) == 0 {
		t.Errorf("completion = %#v, %v", res, err)
	}

	// The edit replaces what was typed, quote and dash included: Neovim
	// replaces from its range's start, and its words stop at `"` and `-`.
	cfg := w.hermeticKeys() + "approval_policy = \"on-"
	line := uint32(strings.Count(cfg, "\n"))
	cu := s.open(w.configPath(), 1, cfg)
	res, err = s.server.Completion(s.ctx(), &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: cu}, Position: protocol.Position{Line: line, Character: 22}}})
	list, _ := res.(*protocol.CompletionList)
	if err != nil || list == nil || len(list.Items) != 1 {
		t.Fatalf("completion after `\"on-` = %#v, %v", res, err)
	}
	want := &protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: line, Character: 18}, End: protocol.Position{Line: line, Character: 22}}, NewText: `"on-request"`}
	if got, _ := list.Items[0].TextEdit.(*protocol.TextEdit); got == nil || *got != *want {
		t.Errorf("textEdit = %+v, want %+v", list.Items[0].TextEdit, want)
	}
	s.shutdown()
}
