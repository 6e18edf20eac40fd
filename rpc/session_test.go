package rpc

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
)

// editor is what an editor declares: pull diagnostics, UTF-16, and
// window/showMessageRequest with actions, so it is given prompts.
var editor = protocol.ClientCapabilities{
	TextDocument: &protocol.TextDocumentClientCapabilities{Diagnostic: &protocol.DiagnosticClientCapabilities{}},
	General:      &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}},
	Window:       &protocol.WindowClientCapabilities{ShowMessage: &protocol.ShowMessageRequestClientCapabilities{MessageActionItem: &protocol.ClientShowMessageActionItemOptions{}}},
}

func partial(sl, sc, el, ec uint32, text string) *protocol.TextDocumentContentChangePartial {
	return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{
		Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}, Text: text}
}

// TestEditorSession drives the server as an editor does: initialize,
// open, incremental edits with text outside the BMP, code actions, pull
// diagnostics, shutdown and exit.
func TestEditorSession(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	res := s.initialize(editor)
	if res.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF16 {
		t.Errorf("positionEncoding = %q", res.Capabilities.PositionEncoding)
	}
	if res.Capabilities.DiagnosticProvider != nil {
		t.Error("diagnosticProvider offered: a client that pulls as well as receiving pushes shows every finding twice")
	}

	text := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"echo 🐳\"\nacton = \"deny\"\n"
	u := s.open(w.permissionsPath(), 1, text)
	p := s.waitVersion(u, 1)
	if !hasDiag(p.Diagnostics, diag{"CW002", "3:0-3:5"}) {
		t.Fatalf("v1: want CW002 on `acton` (3:0-3:5), got %v", summarize(p.Diagnostics))
	}
	d := p.Diagnostics[0]
	if src, _ := d.Source.Get(); src != "codewhale" || !strings.HasPrefix(string(d.CodeDescription.Href), diagnostics.DocsURL+"#cw") {
		t.Errorf("source %q, href %q", src, d.CodeDescription.Href)
	}
	if _, ok := d.Message.(protocol.String); !ok {
		t.Errorf("message is %T, want the string form", d.Message)
	}

	// "echo 🐳" → "echo 🐳🐳": 🐳 is two UTF-16 units, so the end of the
	// line is character 18; then `acton` → `action`, with the value made
	// wrong: the fix of one mistake shows the next.
	// A change located in bytes instead would split the 🐳 and break the
	// TOML (CW001).
	s.change(u, 2, partial(2, 18, 2, 18, "🐳"), partial(3, 0, 3, 5, "action"), partial(3, 10, 3, 14, "Deny🐳"))
	p = s.waitVersion(u, 2)
	if got := summarize(p.Diagnostics); !hasDiag(p.Diagnostics, diag{"CW003", "3:9-3:17"}) || hasDiag(p.Diagnostics, diag{"CW002", "3:0-3:5"}) || hasCode(p.Diagnostics, "CW001") {
		t.Fatalf("v2: want CW003 on `\"Deny🐳\"` (3:9-3:17, UTF-16), got %v", got)
	}

	pulled, err := s.server.Diagnostic(s.ctx(), &protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatal(err)
	}
	full, ok := pulled.(*protocol.RelatedFullDocumentDiagnosticReport)
	if !ok || full.Kind != "full" || !hasDiag(full.Items, diag{"CW003", "3:9-3:17"}) {
		t.Errorf("pull = %#v", pulled)
	}

	actions, err := s.server.CodeAction(s.ctx(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{Start: protocol.Position{Line: 3, Character: 10}, End: protocol.Position{Line: 3, Character: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	ignore := findAction(actions, "Ignore CW003 here")
	if ignore == nil {
		t.Fatalf("no ignore action among %v", titles(actions))
	}
	edit := ignore.Edit.Changes[u]
	if len(edit) != 1 || edit[0].Range.Start != (protocol.Position{Line: 3}) || edit[0].NewText != diagnostics.IgnoreMarker+" CW003\n" {
		t.Errorf("ignore edit = %+v", edit)
	}

	// Applying the ignore silences the finding.
	s.change(u, 3, partial(3, 0, 3, 0, edit[0].NewText))
	p = s.waitVersion(u, 3)
	if hasCode(p.Diagnostics, "CW003") {
		t.Errorf("v3: CW003 still reported after the ignore comment: %v", summarize(p.Diagnostics))
	}
	s.shutdown()
}

func findAction(actions []protocol.CommandOrCodeAction, title string) *protocol.CodeAction {
	for _, a := range actions {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.Title == title {
			return ca
		}
	}
	return nil
}

func titles(actions []protocol.CommandOrCodeAction) []string {
	var out []string
	for _, a := range actions {
		if ca, ok := a.(*protocol.CodeAction); ok {
			out = append(out, ca.Title)
		}
	}
	return out
}
