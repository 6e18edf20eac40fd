package rpc

import (
	"context"
	"errors"
	"io"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/rpc/transport"
)

// ErrExitWithoutShutdown is Serve's error when the client sent exit before
// shutdown; LSP asks for exit status 1 then.
var ErrExitWithoutShutdown = errors.New("exit without shutdown")

// closeTimeout bounds the wait for the connection to close by itself
// (in-flight handlers answered, queued messages written); after it the
// transport is closed by force, which wakes a read or write blocked on a
// pipe or socket, and the wait is bounded once more.
const closeTimeout = time.Second

// Serve runs a language server over in and out (stdin and stdout) until
// the client sends exit or closes the stream. A stream that ends, even in
// the middle of a message, is a clean end.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	s := newServer(opts)
	stream := transport.NewStream(in, out, s.log)
	conn := jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(transport.Codec{}))
	s.conn = conn
	s.client = protocol.ClientDispatcher(conn)
	conn.Go(protocol.WithClient(ctx, s.client), s.handler())
	select {
	case <-s.exited:
	case <-stream.InputEnded(): // the client went away, perhaps with handlers in flight
	case <-conn.Done():
	case <-ctx.Done():
	}
	s.mu.Lock()
	s.state = shutDown
	clean := s.exitClean
	s.mu.Unlock()
	s.stopDeciding() // a client that went away answers no prompt
	s.baselines.Close()
	s.stopChecks()
	closed := make(chan struct{})
	go func() {
		_ = conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(closeTimeout):
		// A client that reads none of our output, or a read on input the
		// client keeps open: closing the transport ends both.
		s.log.Warn("the transport did not close; closing it by force")
		_ = stream.ForceClose()
		select {
		case <-closed:
		case <-time.After(closeTimeout):
			// Only a read the system cannot interrupt (a terminal) is left;
			// the process is about to end.
			s.log.Error("the input cannot be closed; leaving its read behind")
		}
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		s.log.Warn("connection ended", "error", err)
	}
	select {
	case <-s.exited:
		if !clean {
			return ErrExitWithoutShutdown
		}
	default:
	}
	return nil
}
