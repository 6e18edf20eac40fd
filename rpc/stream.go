package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"

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
//
// When the input ends (the client closed it, or a read failed) inputEnded
// closes: jsonrpc2's Done waits for every handler in flight, and a handler
// waiting on a hook or a prompt must instead be ended by the session's end.
type tolerantStream struct {
	jsonrpc2.Stream
	frames     *frameReader
	log        *slog.Logger
	inputEnded chan struct{}
	endOnce    *sync.Once
}

func newTolerantStream(in io.Reader, out io.Writer, log *slog.Logger) tolerantStream {
	return tolerantStream{
		Stream:     jsonrpc2.NewStream(stdio{in, newBatchWriter(writeCloser(out))}),
		frames:     newFrameReader(in),
		log:        log,
		inputEnded: make(chan struct{}),
		endOnce:    &sync.Once{},
	}
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
			s.endOnce.Do(func() { close(s.inputEnded) })
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
