package rpc

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/diagnostics/assist"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// Completion offers the keys and values valid at the cursor, each as an
// edit of what the user typed of it.
func (s *Server) Completion(ctx context.Context, params *protocol.CompletionParams) (protocol.CompletionResult, error) {
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	d, ok := s.docs.Get(params.TextDocument.URI)
	if !ok {
		return list, nil
	}
	m := document.NewMapper(d.Text, s.positionEncoding())
	for _, it := range assist.Complete(d.Kind, d.Text, m.Offset(params.Position), s.codewhale.implementation()) {
		item := protocol.CompletionItem{Label: it.Label, Kind: protocol.CompletionItemKindProperty}
		if it.Kind == assist.ItemValue {
			item.Kind = protocol.CompletionItemKindValue
		}
		if it.Detail != "" {
			item.Detail = protocol.NewOptional(it.Detail)
		}
		if it.Documentation != "" {
			item.Documentation = &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: it.Documentation}
		}
		// A text edit, not insertText: only the range says that the typed
		// text (its quote included) is replaced, not added to.
		item.TextEdit = &protocol.TextEdit{Range: m.Range(it.Replace), NewText: it.NewText}
		list.Items = append(list.Items, item)
	}
	return list, nil
}
