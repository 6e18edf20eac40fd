package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// ErrInUse: another live server already serves approvals for the workspace.
var ErrInUse = errors.New("another codewhale-ls already serves approvals for this workspace")

// acceptRetry is the pause after a failed accept before the next.
const acceptRetry = 50 * time.Millisecond

// Server answers Requests on a workspace's socket. Every goroutine it
// starts ends in Close.
type Server struct {
	workspace string
	path      string
	ln        *net.UnixListener
	handle    Handler
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}

	// serves, set for the console (ListenConsole), admits a request of
	// any workspace it names that serves accepts; otherwise only
	// workspace's requests are read.
	serves func(workspace string) error
}

// Listen serves workspace's socket, deciding each request with handle.
func Listen(workspace string, handle Handler) (*Server, error) {
	if !filepath.IsAbs(workspace) {
		return nil, fmt.Errorf("workspace %q is not an absolute path", workspace)
	}
	workspace = filepath.Clean(workspace)
	path, err := SocketPath(workspace)
	if err != nil {
		return nil, err
	}
	return listenAt(path, &Server{workspace: workspace, handle: handle})
}

// listenAt serves s (its workspace or serves, and its handler) on the
// socket at path, in the safe runtime directory.
func listenAt(path string, s *Server) (*Server, error) {
	if err := makeSafeDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening for approvals: %w", err)
	}
	// The directory is 0700 already; 0600 keeps the socket ours if it moves.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restricting the approval socket: %w", err)
	}
	s.path, s.ln, s.conns = path, ln, map[net.Conn]struct{}{}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket the server listens on.
func (s *Server) Path() string { return s.path }

// removeStale removes a socket left by a server that died or held by a
// program that is not codewhale-ls, and refuses to take over one that
// another codewhale-ls serves.
func removeStale(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode().Type() != os.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; refusing to replace it", path)
	}
	if conn, err := net.DialTimeout("unix", path, time.Second); err == nil {
		// Another editor's codewhale-ls serves the workspace; anything
		// else listening there is an impostor, whose socket goes.
		impostor := checkServerIdentity(conn.(*net.UnixConn))
		conn.Close()
		if impostor == nil {
			return ErrInUse
		}
	}
	return os.Remove(path)
}

// Close stops listening, ends every request in progress (its decision is
// the handler's answer to a cancelled context) and waits for them.
//
// Connections close before the handlers' contexts end, so a client never
// takes the answer of a decision cut short by shutdown for the user's: it
// sees ErrServerGone and denies.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.cancel()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.AcceptUnix()
		if err != nil {
			if s.isClosed() {
				return
			}
			// A passing failure (out of file descriptors): wait and go on
			// listening rather than go deaf.
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(acceptRetry):
			}
			continue
		}
		if !s.track(conn) {
			conn.Close()
			return
		}
		s.wg.Add(1)
		go s.serve(conn)
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// track registers an open connection for Close, unless Close has begun.
func (s *Server) track(conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[conn] = struct{}{}
	return true
}

func (s *Server) serve(conn *net.UnixConn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
	}()
	if err := checkPeer(conn); err != nil {
		reply(conn, wireReply{Refused: err.Error()})
		return
	}
	conn.SetReadDeadline(time.Now().Add(readTimeout))
	req, err := s.read(conn)
	var refused notServed
	if errors.As(err, &refused) {
		reply(conn, wireReply{Refused: refused.Error()})
		return
	}
	if err != nil {
		reply(conn, wireReply{Error: err.Error()})
		return
	}
	conn.SetReadDeadline(time.Time{})
	ctx, cancel := context.WithDeadline(s.ctx, req.Deadline.Add(-ServerMargin))
	defer cancel()
	if s.serves != nil {
		// The console shows a card per request: a hook that left takes
		// its card off the screen at once (ErrClientGone).
		var hangup context.CancelCauseFunc
		ctx, hangup = context.WithCancelCause(ctx)
		defer hangup(nil)
		s.wg.Add(1)
		go s.watchHangup(conn, hangup)
	}
	d := s.handle(ctx, req)
	reply(conn, wireReply{Decision: &d})
}

// read takes one request line (at most maxMessage bytes) and validates it
// as codewhale/authorize validates its params.
func (s *Server) read(conn net.Conn) (Request, error) {
	line, err := bufio.NewReader(io.LimitReader(conn, maxMessage+1)).ReadBytes('\n')
	if len(line) > maxMessage {
		return Request{}, fmt.Errorf("request longer than %d bytes", maxMessage)
	}
	if err != nil {
		return Request{}, fmt.Errorf("reading the request (one JSON object ended by a newline): %w", err)
	}
	workspace := s.workspace
	if s.serves != nil {
		if workspace, err = s.servedWorkspace(line); err != nil {
			return Request{}, err
		}
	}
	return parseRequest(line, workspace)
}

// parseRequest reads a wire request for the server of workspace. The call
// must concern that workspace: an agent does not pick the policy that
// judges it.
func parseRequest(line []byte, workspace string) (Request, error) {
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Request{}, fmt.Errorf("request is not a valid JSON object: %w", err)
	}
	if w.Agent == "" {
		return Request{}, errors.New(`field "agent": required`)
	}
	if w.Deadline.IsZero() {
		return Request{}, errors.New(`field "deadline": required`)
	}
	if filepath.Clean(w.Workspace) != workspace {
		return Request{}, fmt.Errorf(`field "workspace": %q is not this server's workspace %q`, w.Workspace, workspace)
	}
	if len(w.Call) == 0 {
		return Request{}, errors.New(`field "call": required`)
	}
	call, err := gate.ParseRequest(w.Call, gate.Request{Workspace: workspace})
	if err != nil {
		return Request{}, fmt.Errorf(`field "call": %w`, err)
	}
	if call.Workspace != workspace {
		return Request{}, fmt.Errorf(`field "call.workspace": %q is not this server's workspace %q`, call.Workspace, workspace)
	}
	call.NeedsHuman = w.NeedsHuman
	return Request{Agent: w.Agent, Session: w.Session, Workspace: workspace, Call: call, Deadline: w.Deadline}, nil
}

// reply writes the one answer of a connection; a client that left cannot
// be told anything, so a write error only ends the connection.
func reply(conn net.Conn, r wireReply) {
	raw, err := json.Marshal(r)
	if err != nil {
		raw, _ = json.Marshal(wireReply{Error: "encoding the reply: " + err.Error()})
	}
	conn.SetWriteDeadline(time.Now().Add(readTimeout))
	conn.Write(append(raw, '\n'))
}
