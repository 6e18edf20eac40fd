package transport

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is protocol's own (unexported) LSP codec, as in
// docs/codewhale/deps.md Appendix A2: protocol.Marshal and Unmarshal know
// the generated unions, which jsonrpc2's default codec does not. Raw
// messages pass through untouched.
type Codec struct{}

func (Codec) Marshal(v any) ([]byte, error) {
	if m, ok := v.(jsonrpc2.RawMessage); ok {
		return m, nil
	}
	return protocol.Marshal(v)
}

func (Codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
