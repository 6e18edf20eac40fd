package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

// tolerantStream reads frames with frameReader and skips any frame that
// does not decode: jsonrpc2 ends the connection on the first frame that
// is not JSON-RPC, and its own reader never recovers from a bad header.
// A broken message from a client must not end or deafen the session.
// Writes and Close are the jsonrpc2 stream's.
//
// One malformed frame is not skipped: a response to one of our calls that
// carries both result and error. jsonrpc2 drops it, which would leave an
// approval prompt waiting for its deadline; it is read as an error
// response instead, so the prompt is denied at once.
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
		if err == nil {
			return msg, s.frames.offset - start, nil
		}
		if resp := ambiguousResponse(body); resp != nil {
			s.log.Warn("a response carries both result and error; read as an error", "id", resp.ID())
			return resp, s.frames.offset - start, nil
		}
		s.log.Warn("skipped a malformed message", "byte", start, "error", err)
	}
}

// ambiguousResponse is the error response standing for a response object
// with an id and both result and error, or nil for any other frame.
func ambiguousResponse(body []byte) *jsonrpc2.Response {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || fields["result"] == nil || fields["error"] == nil {
		return nil
	}
	var id jsonrpc2.ID
	var s string
	if n, err := strconv.ParseInt(string(fields["id"]), 10, 64); err == nil {
		id = jsonrpc2.NewNumberID(n)
	} else if json.Unmarshal(fields["id"], &s) == nil {
		id = jsonrpc2.NewStringID(s)
	} else {
		return nil
	}
	return jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the response carries both result and error"))
}
