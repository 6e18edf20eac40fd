package rpc

import (
	"context"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// tolerantStream reads frames with frameReader and skips any frame that
// does not decode: jsonrpc2 ends the connection on the first frame that
// is not JSON-RPC, and its own reader never recovers from a bad header.
// A broken message from a client must not end or deafen the session.
// Writes and Close are the jsonrpc2 stream's.
type tolerantStream struct {
	jsonrpc2.Stream
	frames *frameReader
	log    *slog.Logger
}

func (s tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		start := s.frames.offset
		body, err := s.frames.next()
		var bad *errFrame
		if errors.As(err, &bad) {
			s.log.Warn("skipped a malformed frame", "error", err)
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.log.Warn("skipped a malformed message", "byte", start, "error", err)
			continue
		}
		return msg, s.frames.offset - start, nil
	}
}
