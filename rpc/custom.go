package rpc

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// customMethod serves one codewhale/* method. params are the raw JSON,
// empty when the client omitted them (VS Code does for param-less
// requests), so each method decodes what it needs itself.
type customMethod func(ctx context.Context, s *Server, params jsonrpc2.RawMessage) (any, error)

// customMethods are the codewhale/* methods, each registered by the file
// that implements it (status.go, ...).
var customMethods = map[string]customMethod{}

func register(method string, m customMethod) { customMethods[method] = m }
