package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

// tolerantStream skips frames that do not decode. jsonrpc2 ends the
// connection on the first frame that is not JSON-RPC; a broken message
// from a client must not end the session. Each skipped frame was read
// whole, so the next read starts at the next frame.
//
// One malformed frame is not skipped: a response to one of our calls that
// carries both result and error. jsonrpc2 drops it, which would leave an
// approval prompt waiting for its deadline; it is read as an error
// response instead, so the prompt is denied at once.
type tolerantStream struct {
	jsonrpc2.Stream
	log *slog.Logger
}

// frameReader is the raw-frame side of jsonrpc2's framed streams.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

func (s tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frames, raw := s.Stream.(frameReader)
	for {
		var msg jsonrpc2.Message
		var n int64
		var err error
		var body []byte
		if raw {
			body, n, err = frames.ReadFrame(ctx)
			if err == nil {
				msg, err = jsonrpc2.DecodeMessage(body)
			}
		} else {
			msg, n, err = s.Stream.Read(ctx)
		}
		if err == nil || !malformed(err) {
			return msg, n, err
		}
		if resp := ambiguousResponse(body); resp != nil {
			s.log.Warn("a response carries both result and error; read as an error", "id", resp.ID())
			return resp, n, nil
		}
		s.log.Warn("skipped a malformed message", "error", err)
	}
}

func malformed(err error) bool {
	return errors.Is(err, jsonrpc2.ErrParse) || errors.Is(err, jsonrpc2.ErrInvalidRequest) || errors.Is(err, jsonrpc2.ErrInvalidHeader)
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
