package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// cursorMarker marks the cursor in a case's file (testdata/cases/README.md);
// it is taken out before the file is written. No policy file has it: it is
// two CJK corner brackets around a caret.
const cursorMarker = "⸢^⸣"

// thenSection holds what the user is shown; thenFilePrefix+PATH the text
// of PATH after a code action is applied.
const (
	thenSection    = "then"
	thenFilePrefix = "then/"
)

// caseRequests are the requests a case may make, by its directory under
// testdata/cases, each with the `when` word that makes it.
var caseRequests = map[string]string{
	"hover":      "hover",
	"completion": "complete",
	"codeaction": "codeaction",
	"authorize":  "authorize",
}

// TestCases runs every testdata/cases/*/*.txtar against the server, as
// testdata/cases/README.md says: the files are the Given, the comment's
// `when` lines the requests an editor or agent makes, and the then
// sections what the user is shown, compared exactly (-update rewrites
// them). Each case has a temp dir of its own, so they run in parallel.
func TestCases(t *testing.T) {
	archives, _ := filepath.Glob("testdata/cases/*/*.txtar")
	if len(archives) == 0 {
		t.Fatal("no cases")
	}
	for _, archive := range archives {
		dir := filepath.Base(filepath.Dir(archive))
		t.Run(dir+"/"+strings.TrimSuffix(filepath.Base(archive), ".txtar"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(archive)
			if err != nil {
				t.Fatal(err)
			}
			verb, ok := caseRequests[dir]
			if !ok {
				t.Fatalf("testdata/cases/%s is no request a case makes (%v)", dir, caseRequests)
			}
			comment, files := parseTxtar(data)
			whens := commentArgs(comment, "when "+verb)
			if len(whens) == 0 || len(whens) != len(commentArgs(comment, "when")) {
				t.Fatalf("a case under %s says what the user does with `when %s ...` lines, and only those", dir, verb)
			}
			var given, want []txtarFile
			for _, f := range files {
				if f.name == thenSection || strings.HasPrefix(f.name, thenFilePrefix) {
					want = append(want, f)
				} else {
					given = append(given, f)
				}
			}
			got := runCase(t, verb, comment, whens, given)
			if *update {
				if err := os.WriteFile(archive, formatTxtar(comment, append(given, got...)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			checkThen(t, got, want)
		})
	}
}

// checkThen compares the then sections the server's answers make with the
// case's, section by section.
func checkThen(t *testing.T, got, want []txtarFile) {
	t.Helper()
	for _, g := range got {
		i := slices.IndexFunc(want, func(w txtarFile) bool { return w.name == g.name })
		if i < 0 {
			t.Errorf("no %s section; run with -update. Got:\n%s", g.name, g.data)
			continue
		}
		if g, w := string(g.data), string(want[i].data); g != w {
			t.Errorf("%s differs (-update rewrites); %s\ngot:\n%s\nwant:\n%s", want[i].name, firstDifference(g, w), g, w)
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g txtarFile) bool { return g.name == w.name }) {
			t.Errorf("section %s is no result of the case (-update removes it)", w.name)
		}
	}
}

// runCase writes the case's files, makes its requests in one session and
// returns the then sections of their answers.
func runCase(t *testing.T, verb, comment string, whens []string, given []txtarFile) []txtarFile {
	w := newWorld(t)
	opts := Options{CodewhaleVersion: pinnedRelease(comment)}
	if verb == "authorize" {
		writeArchive(t, w, given)
		then := authorizeCase(t, w, opts, comment, whens)
		return []txtarFile{{thenSection, []byte(strings.ReplaceAll(then, w.tmp, "$TMP"))}}
	}
	if len(whens) != 1 {
		t.Fatalf("a %s case makes one request, not %d", verb, len(whens))
	}
	rel, rest, _ := strings.Cut(whens[0], " ")
	given, cursor := takeCursor(t, given, rel, w.tmp)
	writeArchive(t, w, given)
	s := newSession(t, w, opts)
	s.initialize(editor)
	path := filepath.Join(w.tmp, filepath.FromSlash(rel))
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := s.open(path, 1, string(text))
	// The first check is in: hover has its snapshot, code actions their
	// findings.
	published := s.waitVersion(u, 1)
	pos := document.NewMapper(text, protocol.PositionEncodingKindUTF16).Position(cursor)
	var then []txtarFile
	switch verb {
	case "hover":
		then = []txtarFile{{thenSection, []byte(hoverCase(t, s, u, pos))}}
	case "complete":
		then = []txtarFile{{thenSection, []byte(completionCase(t, s, u, pos, text))}}
	case "codeaction":
		then = codeActionCase(t, s, u, pos, published.Diagnostics, text, rel, rest)
	}
	s.shutdown()
	for i := range then {
		then[i].data = []byte(strings.ReplaceAll(string(then[i].data), w.tmp, "$TMP"))
	}
	return then
}

// takeCursor takes the cursor marker out of the file rel, with $TMP
// replaced by tmp as writeArchive would, and returns the byte offset it
// marked in the text written.
func takeCursor(t *testing.T, files []txtarFile, rel, tmp string) ([]txtarFile, int) {
	t.Helper()
	i := slices.IndexFunc(files, func(f txtarFile) bool { return f.name == rel })
	if i < 0 {
		t.Fatalf("the case has no file %s", rel)
	}
	text := strings.ReplaceAll(string(files[i].data), "$TMP", tmp)
	cursor := strings.Index(text, cursorMarker)
	if cursor < 0 || strings.Count(text, cursorMarker) != 1 {
		t.Fatalf("%s must mark the cursor with one %s", rel, cursorMarker)
	}
	files = slices.Clone(files)
	files[i] = txtarFile{rel, []byte(strings.Replace(text, cursorMarker, "", 1))}
	return files, cursor
}

func positionParams(u uri.URI, pos protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}
}

// hoverCase is the hover at the cursor as the then section has it: the
// span it highlights, then the Markdown shown, or "no hover".
func hoverCase(t *testing.T, s *session, u uri.URI, pos protocol.Position) string {
	t.Helper()
	h, err := s.server.Hover(s.ctx(), &protocol.HoverParams{TextDocumentPositionParams: positionParams(u, pos)})
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	if h == nil {
		return "no hover\n"
	}
	mc, ok := h.Contents.(*protocol.MarkupContent)
	if !ok || mc.Kind != protocol.MarkupKindMarkdown || h.Range == nil {
		t.Fatalf("hover = %#v, want Markdown with a range", h)
	}
	return fmt.Sprintf("at %s\n\n%s\n", spanText(*h.Range), mc.Value)
}

// completionCase is the completion list at the cursor, one item a line,
// "LABEL — DETAIL", then what accepting it does to the text when that is
// not just the label written at the cursor: "· writes" the new text or,
// over what the user typed of it, "· turns" the typed text "into" the new
// one (testdata/cases/README.md).
func completionCase(t *testing.T, s *session, u uri.URI, pos protocol.Position, text []byte) string {
	t.Helper()
	res, err := s.server.Completion(s.ctx(), &protocol.CompletionParams{TextDocumentPositionParams: positionParams(u, pos)})
	if err != nil {
		t.Fatalf("completion: %v", err)
	}
	list, ok := res.(*protocol.CompletionList)
	if !ok {
		t.Fatalf("completion = %#v, want a list", res)
	}
	if len(list.Items) == 0 {
		return "no completions\n"
	}
	m := document.NewMapper(text, protocol.PositionEncodingKindUTF16)
	var b strings.Builder
	for _, it := range list.Items {
		b.WriteString(it.Label)
		if detail, ok := it.Detail.Get(); ok {
			b.WriteString(" — " + detail)
		}
		edit, ok := it.TextEdit.(*protocol.TextEdit)
		if !ok {
			t.Fatalf("%s has no text edit: %#v", it.Label, it.TextEdit)
		}
		span, ok := m.Span(edit.Range)
		if !ok || edit.Range.End != pos {
			t.Fatalf("%s edits %s, which does not end at the cursor %s", it.Label, spanText(edit.Range), spanText(protocol.Range{Start: pos, End: pos}))
		}
		switch typed := string(text[span.Start:span.End]); {
		case typed != "":
			fmt.Fprintf(&b, " · turns `%s` into `%s`", typed, edit.NewText)
		case edit.NewText != it.Label:
			fmt.Fprintf(&b, " · writes `%s`", edit.NewText)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// codeActionCase asks for the code actions at the cursor, with the
// findings there in the context as an editor sends them, and applies the
// one titled title: the then section lists every action offered, the
// then/PATH section is the file afterwards.
func codeActionCase(t *testing.T, s *session, u uri.URI, pos protocol.Position, published []protocol.Diagnostic, text []byte, rel, title string) []txtarFile {
	t.Helper()
	var here []protocol.Diagnostic
	for _, d := range published {
		if !positionBefore(pos, d.Range.Start) && !positionBefore(d.Range.End, pos) {
			here = append(here, d)
		}
	}
	actions, err := s.server.CodeAction(s.ctx(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{Start: pos, End: pos}, Context: protocol.CodeActionContext{Diagnostics: here}})
	if err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	var b strings.Builder
	var chosen *protocol.CodeAction
	for _, a := range actions {
		ca, ok := a.(*protocol.CodeAction)
		if !ok || ca.Kind == nil || ca.Edit == nil {
			t.Fatalf("action %#v is no code action with a kind and an edit", a)
		}
		var codes []string
		for _, d := range ca.Diagnostics {
			code, _ := d.Code.(protocol.String)
			codes = append(codes, string(code))
		}
		line := fmt.Sprintf("%s %s", *ca.Kind, ca.Title)
		if len(codes) > 0 {
			line += " for " + strings.Join(codes, ", ")
		}
		if ca.IsPreferred != nil && *ca.IsPreferred {
			line += " (preferred)"
		}
		b.WriteString(line + "\n")
		if ca.Title == title && chosen == nil {
			chosen = ca
		}
	}
	if chosen == nil {
		t.Fatalf("no action %q is offered; offered:\n%s", title, b.String())
	}
	for other := range chosen.Edit.Changes {
		if other != u {
			t.Fatalf("%q edits %s, not only the file it was asked for", title, other)
		}
	}
	// Edits of one action are relative to the text before any of them:
	// applied from the last to the first, each leaves the positions of the
	// ones still to come where they were.
	edits := slices.Clone(chosen.Edit.Changes[u])
	slices.SortStableFunc(edits, func(a, b protocol.TextEdit) int {
		if positionBefore(a.Range.Start, b.Range.Start) {
			return 1
		}
		if positionBefore(b.Range.Start, a.Range.Start) {
			return -1
		}
		return 0
	})
	changes := make([]protocol.TextDocumentContentChangeEvent, 0, len(edits))
	for _, e := range edits {
		changes = append(changes, &protocol.TextDocumentContentChangePartial{Range: e.Range, Text: e.NewText})
	}
	after, err := document.Apply(text, changes, protocol.PositionEncodingKindUTF16)
	if err != nil {
		t.Fatalf("applying %q: %v", title, err)
	}
	return []txtarFile{{thenSection, []byte(b.String())}, {thenFilePrefix + rel, after}}
}

func positionBefore(a, b protocol.Position) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Character < b.Character)
}

// authorizeCase makes each `when authorize REQUEST` call in turn, in one
// session whose client answers every prompt as the case's `answer` line
// says (none: a null answer), and writes each answer: the prompt shown,
// the decision, and its trace.
func authorizeCase(t *testing.T, w *world, opts Options, comment string, whens []string) string {
	t.Helper()
	var answer any // null: the user dismissed the card
	if choices := commentArgs(comment, "answer"); len(choices) > 0 {
		answer = map[string]string{"choice": choices[len(choices)-1]}
	}
	s := newSession(t, w, opts)
	s.approve = func(context.Context, string, json.RawMessage) (any, error) { return answer, nil }
	s.initializeWith(editor, map[string]any{"approvals": "codewhale", "decisionLog": false})
	var b strings.Builder
	for i, when := range whens {
		if i > 0 {
			b.WriteString("\n")
		}
		prompts := s.promptCount()
		var raw json.RawMessage
		_, err := s.conn.Call(s.ctx(), "codewhale/authorize", json.RawMessage(strings.ReplaceAll(when, "$TMP", w.tmp)), &raw)
		if rpcErr := (*jsonrpc2.Error)(nil); errors.As(err, &rpcErr) {
			fmt.Fprintf(&b, "error %d: %s\n", rpcErr.Code, rpcErr.Message)
			continue
		} else if err != nil {
			t.Fatalf("authorize %s: %v", when, err)
		}
		s.mu.Lock()
		asked := slices.Clone(s.prompts[prompts:])
		s.mu.Unlock()
		b.WriteString(decisionText(t, raw, asked))
	}
	s.shutdown()
	return b.String()
}

// decisionText writes the prompts a call showed, `asked SUMMARY: CHOICES`,
// then its decision, `DECISION LAYER LAYERNAME: REASON`, the rule and the
// approval if any, and one line per layer of the trace, `LAYER NAME
// EFFECT: DETAIL`. A prompt's id, random, is written $PROMPT.
func decisionText(t *testing.T, raw json.RawMessage, asked []json.RawMessage) string {
	t.Helper()
	var b strings.Builder
	for _, a := range asked {
		var p prompted
		if err := json.Unmarshal(a, &p); err != nil {
			t.Fatal(err)
		}
		var choices []string
		for _, c := range p.Choices {
			choices = append(choices, c.ID)
		}
		fmt.Fprintf(&b, "asked %s: %s\n", p.Summary, strings.Join(choices, ", "))
		raw = json.RawMessage(strings.ReplaceAll(string(raw), p.ID, "$PROMPT"))
	}
	var d gate.Decision
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("decision %s: %v", raw, err)
	}
	fmt.Fprintf(&b, "%s %d %s: %s\n", d.Decision, d.Layer, d.LayerName, d.Reason)
	if d.Rule != nil {
		fmt.Fprintf(&b, "rule %s\n", *d.Rule)
	}
	if d.Approval != nil {
		fmt.Fprintf(&b, "approval %s/%s\n", d.Approval.Choice, d.Approval.Source)
	}
	for _, step := range d.Trace {
		fmt.Fprintf(&b, "  %d %s %s: %s\n", step.Layer, step.Name, step.Effect, step.Detail)
	}
	return b.String()
}
