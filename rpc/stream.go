package rpc

import (
	"context"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// tolerantStream skips frames that do not decode. jsonrpc2 ends the
// connection on the first frame that is not JSON-RPC; a broken message
// from a client must not end the session. Each skipped frame was read
// whole, so the next read starts at the next frame.
type tolerantStream struct {
	jsonrpc2.Stream
	log *slog.Logger
}

func (s tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		msg, n, err := s.Stream.Read(ctx)
		if err == nil || !malformed(err) {
			return msg, n, err
		}
		s.log.Warn("skipped a malformed message", "error", err)
	}
}

func malformed(err error) bool {
	return errors.Is(err, jsonrpc2.ErrParse) || errors.Is(err, jsonrpc2.ErrInvalidRequest) || errors.Is(err, jsonrpc2.ErrInvalidHeader)
}
