package rpc

import (
	"context"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// served are the standard methods protocol.ServerHandler decodes for us.
// Every other method is answered before it: protocol's fallback
// (Server.Request) fails on a message without params, which for a
// notification would end the connection (docs/codewhale/deps.md §1).
var served = map[string]bool{
	protocol.MethodInitialize:                     true,
	protocol.MethodInitialized:                    true,
	protocol.MethodShutdown:                       true,
	protocol.MethodExit:                           true,
	protocol.MethodTextDocumentDidOpen:            true,
	protocol.MethodTextDocumentDidChange:          true,
	protocol.MethodTextDocumentDidSave:            true,
	protocol.MethodTextDocumentDidClose:           true,
	protocol.MethodTextDocumentDiagnostic:         true,
	protocol.MethodTextDocumentCodeAction:         true,
	protocol.MethodTextDocumentHover:              true,
	protocol.MethodTextDocumentDocumentSymbol:     true,
	protocol.MethodTextDocumentCompletion:         true,
	protocol.MethodWorkspaceDidChangeWatchedFiles: true,
}

// handler is the chain of docs/codewhale/deps.md appendix A2. Every call is released with
// jsonrpc2.Async first: that lets a handler call back into the client and
// avoids jsonrpc2's pooled-context race under CancelHandler. Notifications
// stay inline on the read loop, so edits apply in wire order.
func (s *Server) handler() jsonrpc2.Handler {
	inner := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	chain := protocol.CancelHandler(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		method := req.Method()
		if err := s.errNotRunning(method); err != nil {
			if req.IsCall() {
				return nil, err
			}
			if method != protocol.MethodExit {
				return nil, nil // LSP: drop notifications outside the session
			}
		}
		if m, ok := customMethods[method]; ok {
			return m(ctx, s, req.Params())
		}
		if !served[method] {
			if req.IsCall() {
				return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
			}
			return nil, nil // LSP: a notification nobody handles is ignored
		}
		return inner(ctx, req)
	})
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := chain(ctx, req)
		if err != nil && !req.IsCall() {
			// jsonrpc2 ends the connection on a notification's error: a
			// malformed didChange or $/cancelRequest must not do that.
			s.log.Warn("notification failed", "method", strings.Clone(req.Method()), "error", err)
			return nil, nil
		}
		return res, err
	}
}
