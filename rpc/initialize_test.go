package rpc

import (
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func TestNegotiateEncoding(t *testing.T) {
	const u8, u16, u32 = protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF32
	for _, c := range []struct {
		offered []protocol.PositionEncodingKind
		want    protocol.PositionEncodingKind
	}{
		{nil, u16},
		{[]protocol.PositionEncodingKind{u8, u16}, u16},
		{[]protocol.PositionEncodingKind{u8}, u8},
		{[]protocol.PositionEncodingKind{u32, u8}, u8},
		{[]protocol.PositionEncodingKind{u32}, u16},
	} {
		if got := negotiateEncoding(&protocol.GeneralClientCapabilities{PositionEncodings: c.offered}); got != c.want {
			t.Errorf("%v: got %s, want %s", c.offered, got, c.want)
		}
	}
}

// TestUTF8Client: a client that offers only utf-8 gets byte columns.
func TestUTF8Client(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	caps := protocol.ClientCapabilities{General: &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8}}}
	if res := s.initialize(caps); res.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF8 || res.Capabilities.DiagnosticProvider != nil {
		t.Errorf("capabilities = %+v", res.Capabilities)
	}
	u := s.open(w.permissionsPath(), 1, "[[rules]]\ntool = \"exec_shell\"\naction = \"🐳\"\n")
	p := s.waitVersion(u, 1)
	if !hasDiag(p.Diagnostics, diag{"CW003", "2:9-2:15"}) { // "🐳" is 6 bytes with its quotes
		t.Errorf("got %v", summarize(p.Diagnostics))
	}
	s.shutdown()
}

// readOnlySession opens a config.toml whose sandbox_mode "Read-Only" has
// a safe fix (CW602) and returns its first publication.
func readOnlySession(t *testing.T) (*session, uri.URI, *protocol.PublishDiagnosticsParams) {
	t.Helper()
	w := newWorld(t)
	text := w.hermeticKeys() + "sandbox_mode = \"Read-Only\"\n"
	w.write(t, w.configPath(), text)
	s := newSession(t, w, Options{})
	s.initialize(editor)
	u := s.open(w.configPath(), 1, text)
	return s, u, s.waitVersion(u, 1)
}

// TestQuickFixFromContext: Neovim asks for code actions at the cursor's
// line with the line's diagnostics in the context; the cursor outside
// the finding's range must still get its fix, and a context diagnostic
// that is not ours must not.
func TestQuickFixFromContext(t *testing.T) {
	s, u, p := readOnlySession(t)
	var cw602 protocol.Diagnostic
	for _, d := range p.Diagnostics {
		if d.Code == protocol.String("CW602") {
			cw602 = d
		}
	}
	if cw602.Code == nil {
		t.Fatalf("no CW602 in %v", summarize(p.Diagnostics))
	}
	line := cw602.Range.Start.Line
	cursor := protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}
	ask := func(context ...protocol.Diagnostic) []protocol.CommandOrCodeAction {
		t.Helper()
		actions, err := s.server.CodeAction(s.ctx(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range: cursor, Context: protocol.CodeActionContext{Diagnostics: context, Only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}}})
		if err != nil {
			t.Fatal(err)
		}
		return actions
	}
	const fix = `Change to "read-only"`
	if a := ask(); findAction(a, fix) != nil {
		t.Fatalf("the cursor at column 0 is outside CW602; without context got %v", titles(a))
	}
	echoed := cw602
	echoed.Range.Start.Character, echoed.Range.End.Character = 0, 1 // columns converted by the client
	if a := ask(echoed); findAction(a, fix) == nil || findAction(a, "Ignore CW602 here") == nil {
		t.Errorf("with CW602 in the context: got %v", titles(a))
	}
	foreign := cw602
	foreign.Message = protocol.String("another server's finding")
	if a := ask(foreign); len(a) != 0 {
		t.Errorf("a diagnostic that is not ours got %v", titles(a))
	}
	s.shutdown()
}
