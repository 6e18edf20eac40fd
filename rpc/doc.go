// Package rpc is codewhale-ls's language server: it speaks LSP 3.17 over
// JSON-RPC and only translates between protocol values and the domain
// packages (config, diagnostics, diagnostics/assist). One file per group of
// LSP methods, as in gopls: initialize.go, text_synchronization.go,
// diagnostics.go, code_action.go, hover.go, symbols.go, completion.go; the
// codewhale/* methods register themselves from their own files (status.go).
package rpc
