package rpc

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/diagnostics/assist"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// DocumentSymbol is the outline of a policy file: its tables, rules,
// hooks and invariants, nested.
func (s *Server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	d, ok := s.docs.Get(params.TextDocument.URI)
	if !ok {
		return protocol.DocumentSymbolSlice{}, nil
	}
	return toSymbols(document.NewMapper(d.Text, s.positionEncoding()), assist.Symbols(d.Kind, d.Text)), nil
}

func toSymbols(m document.Mapper, symbols []assist.Symbol) protocol.DocumentSymbolSlice {
	out := make(protocol.DocumentSymbolSlice, 0, len(symbols))
	for _, sym := range symbols {
		ds := protocol.DocumentSymbol{
			Name:           sym.Name,
			Kind:           symbolKind(sym.Kind),
			Range:          m.Range(sym.Span),
			SelectionRange: m.Range(sym.SelectionSpan),
		}
		if sym.Detail != "" {
			ds.Detail = &sym.Detail
		}
		if len(sym.Children) > 0 {
			ds.Children = toSymbols(m, sym.Children)
		}
		out = append(out, ds)
	}
	return out
}

func symbolKind(k assist.SymbolKind) protocol.SymbolKind {
	switch k {
	case assist.SymbolTable:
		return protocol.SymbolKindNamespace
	case assist.SymbolRule:
		return protocol.SymbolKindObject
	case assist.SymbolHook:
		return protocol.SymbolKindEvent
	case assist.SymbolInvariant:
		return protocol.SymbolKindConstant
	}
	return protocol.SymbolKindKey
}
