package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Stream is the jsonrpc2.Stream the server runs on. It reads frames with
// frameReader and skips any frame that does not decode: jsonrpc2 ends the
// connection on the first frame that is not JSON-RPC, and its own reader
// never recovers from a bad header. A broken message from a client must
// not end or deafen the session. Writes and Close are the jsonrpc2
// stream's, over the batching writer.
//
// An ambiguous response to one of our calls is not skipped: one that
// carries both result and error (jsonrpc2 drops it, which would leave an
// approval prompt waiting for its deadline), or one that names a member
// twice (jsonrpc2 keeps one of them, so {"result":deny,"result":once}
// would read as once). It is read as an error response instead, so the
// prompt is denied at once.
//
// When the input ends (the client closed it, or a read failed) InputEnded
// closes: jsonrpc2's Done waits for every handler in flight, and a handler
// waiting on a hook or a prompt must instead be ended by the session's end.
type Stream struct {
	jsonrpc2.Stream
	frames     *frameReader
	log        *slog.Logger
	inputEnded chan struct{}
	endOnce    *sync.Once
	// ends are in and out themselves, without the batching writer, for
	// ForceClose.
	ends stdio
}

// NewStream is the stream over in and out (stdin and stdout), logging the
// frames and messages it skips to log.
func NewStream(in io.Reader, out io.Writer, log *slog.Logger) Stream {
	output := writeCloser(out)
	return Stream{
		Stream:     jsonrpc2.NewStream(stdio{in, newBatchWriter(output)}),
		frames:     newFrameReader(in),
		log:        log,
		inputEnded: make(chan struct{}),
		endOnce:    &sync.Once{},
		ends:       stdio{in, output},
	}
}

// InputEnded is closed when the input has ended.
func (s Stream) InputEnded() <-chan struct{} { return s.inputEnded }

// ForceClose closes in and out themselves where they can be closed,
// bypassing the batching writer, whose Close waits for its last write:
// it wakes a read or a write blocked on a pipe or socket. jsonrpc2's
// Close blocks until the transport's Close unblocks reads (the jsonrpc2
// row of docs/codewhale/deps.md), so this ends a Close that does not end
// by itself.
func (s Stream) ForceClose() error { return s.ends.Close() }

// Read is the next message that decodes; see Stream for what is skipped
// and what is read as an error response.
func (s Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
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
			// Only responses are checked: requests pay nothing.
			if resp, ok := msg.(*jsonrpc2.Response); ok {
				if name := duplicateMember(body); name != "" {
					s.log.Warn("a response names a member twice; read as an error", "id", resp.ID(), "member", name)
					msg = invalidResponse(resp.ID(), fmt.Sprintf("the response carries the member %q twice", name))
				}
			}
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
// with an id and both result and error, or nil for any other frame. The
// id may be written as any integral number (1.0) and "jsonrpc" may be
// missing: whatever can be matched to a pending call is denied.
func ambiguousResponse(body []byte) *jsonrpc2.Response {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || fields["result"] == nil || fields["error"] == nil {
		return nil
	}
	var id jsonrpc2.ID
	var s string
	if n, ok := integral(fields["id"]); ok {
		id = jsonrpc2.NewNumberID(n)
	} else if json.Unmarshal(fields["id"], &s) == nil {
		id = jsonrpc2.NewStringID(s)
	} else {
		return nil
	}
	return invalidResponse(id, "the response carries both result and error")
}

// integral is the value of a JSON number with no fractional part (7,
// 7.0, 7e0) that fits an int64.
func integral(raw json.RawMessage) (int64, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// invalidResponse is the error response read in place of an ambiguous one.
func invalidResponse(id jsonrpc2.ID, reason string) *jsonrpc2.Response {
	return jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, reason))
}

// duplicateMember is a top-level member name that body, a JSON object,
// gives twice, or "". Names are compared ignoring case: Go's encoding/json
// matches them so, and a reader must not be able to pick either.
func duplicateMember(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		name, _ := t.(string)
		folded := strings.ToLower(name)
		if seen[folded] {
			return name
		}
		seen[folded] = true
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return ""
		}
	}
	return ""
}

// stdio joins the two halves of a byte stream. Closing it closes both
// where they can be closed.
type stdio struct {
	io.Reader
	io.Writer
}

// writeCloser closes w if w can be closed.
func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopCloser{w}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func (s stdio) Close() error {
	var errs []error
	if c, ok := s.Reader.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.Writer.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
