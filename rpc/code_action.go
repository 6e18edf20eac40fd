package rpc

import (
	"context"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// CodeAction offers, for each finding in the range or among the context's
// diagnostics, its quick fixes and "Ignore CODE here", and for the whole
// document one source.fixAll that applies every safe fix (diagnostics.FixAll,
// the set `check --fix` writes). The context
// counts because a client may ask for the cursor's line with that line's
// diagnostics (Neovim does) while the range itself touches none of them.
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	res, f, err := s.fileResult(params.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	enc := s.positionEncoding()
	m := document.NewMapper(f.Src, enc)
	want, ok := m.Span(params.Range)
	if !ok {
		want = problem.Span{Start: want.End, End: want.Start}
	}
	u := params.TextDocument.URI
	diags := toDiagnostics(res, f, enc)
	var actions []protocol.CommandOrCodeAction
	if wants(params.Context.Only, protocol.CodeActionKindQuickFix) {
		for i, p := range f.Problems {
			inRange := p.Span.Start <= want.End && want.Start <= max(p.Span.End, p.Span.Start)
			if !inRange && !slices.ContainsFunc(params.Context.Diagnostics, func(c protocol.Diagnostic) bool { return sameDiagnostic(c, diags[i]) }) {
				continue
			}
			for _, fix := range append(slices.Clone(p.Fixes), diagnostics.IgnoreFix(f.Src, p)) {
				actions = append(actions, action(u, m, fix, protocol.CodeActionKindQuickFix, diags[i]))
			}
		}
	}
	if wants(params.Context.Only, protocol.CodeActionKindSourceFixAll) {
		if fix, ok := diagnostics.FixAll(f.Problems); ok {
			actions = append(actions, action(u, m, fix, protocol.CodeActionKindSourceFixAll))
		}
	}
	return actions, nil
}

// sameDiagnostic says whether a diagnostic the client sends back is ours:
// same code, message and first line. Character positions are not
// compared: a client may convert them (Neovim 0.7 returns byte columns).
func sameDiagnostic(client, ours protocol.Diagnostic) bool {
	return client.Range.Start.Line == ours.Range.Start.Line &&
		client.Code == ours.Code && client.Message == ours.Message
}

// wants says whether a client that asked only for kinds in only (none:
// every kind) wants kind; "source" covers "source.fixAll".
func wants(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}

func action(u uri.URI, m document.Mapper, fix problem.Fix, kind protocol.CodeActionKind, diags ...protocol.Diagnostic) *protocol.CodeAction {
	edits := make([]protocol.TextEdit, 0, len(fix.Edits))
	for _, e := range fix.Edits {
		edits = append(edits, protocol.TextEdit{Range: m.Range(e.Span), NewText: e.NewText})
	}
	a := &protocol.CodeAction{
		Title:       fix.Title,
		Kind:        &kind,
		Diagnostics: diags,
		Edit:        &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{u: edits}},
	}
	if fix.Safe && kind == protocol.CodeActionKindQuickFix {
		preferred := true
		a.IsPreferred = &preferred
	}
	return a
}
