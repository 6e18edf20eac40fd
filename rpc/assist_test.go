package rpc

import (
	"testing"

	"go.lsp.dev/protocol"
)

// TestDocumentSymbol: the outline reaches diagnostics/assist and comes
// back with ranges in the document. Hover and completion are cases
// (testdata/cases/hover, testdata/cases/completion).
func TestDocumentSymbol(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)
	u := s.open(w.permissionsPath(), 1, "[[rules]]\ntool = \"exec_shell\"\naction = \"deny\"\n\n")
	syms, err := s.server.DocumentSymbol(s.ctx(), &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if list, ok := syms.(protocol.DocumentSymbolSlice); err != nil || !ok || len(list) == 0 || list[0].Range.Start.Line != 0 {
		t.Errorf("documentSymbol = %#v, %v", syms, err)
	}
	s.shutdown()
}
