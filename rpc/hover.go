package rpc

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/diagnostics/assist"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// Hover explains the key or rule under the cursor (diagnostics/assist).
func (s *Server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	d, ok := s.docs.Get(params.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	m := document.NewMapper(d.Text, s.positionEncoding())
	markdown, span, ok := assist.Hover(d.Kind, d.Text, m.Offset(params.Position), s.views.get(d.Workspace).latestSnapshot(), s.codewhale.implementation())
	if !ok {
		return nil, nil
	}
	r := m.Range(span)
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: markdown}, Range: &r}, nil
}
