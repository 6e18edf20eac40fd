package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// The approval console (codewhale-ls approvals) serves one socket for the
// whole user, console.sock in the same safe runtime directory as the
// editors' sockets. A hook asks it when no editor answers for its
// workspace (Ask), so the order of finding a person is the editor that
// serves the repository, then the console (docs/architecture.md, "How
// another agent's hook reaches the editor").

// consoleSocket is the console's socket name; the editors' are hashes
// ending in .sock, which never collide with it.
const consoleSocket = "console.sock"

// ErrClientGone is why the context of a console's request ends when the
// hook that sent it closed its connection (the agent gave up, or was
// killed): its card leaves the screen at once.
var ErrClientGone = errors.New("the hook that asked disconnected")

// ConsolePath is where the user's approval console listens. It does not
// create the directory; ListenConsole does.
func ConsolePath() (string, error) {
	dir, err := runtimeDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, consoleSocket)
	if len(path) >= maxSocketPath {
		return "", fmt.Errorf("approval console socket path %s is %d bytes, longer than a socket address may be (%d): set XDG_RUNTIME_DIR or TMPDIR to a shorter directory", path, len(path), maxSocketPath-1)
	}
	return path, nil
}

// ListenConsole serves the user's console socket, deciding with handle
// each request of a workspace serves accepts (nil); a workspace it does
// not accept gets a refusal, which the hook takes as no approver there
// (ErrNoEditor), and so does every request of another user. A console
// already running keeps the socket: the error says so and names its
// process.
func ListenConsole(serves func(workspace string) error, handle Handler) (*Server, error) {
	if serves == nil {
		return nil, errors.New("remote.ListenConsole: serves is required")
	}
	path, err := ConsolePath()
	if err != nil {
		return nil, err
	}
	// One started from another session (SSH, the desktop) listens in
	// another directory, where hooks look too (dirs.go): still a second.
	if other := consoleElsewhere(path); other != "" {
		return nil, consoleRunning(other)
	}
	s, err := listenAt(path, &Server{serves: serves, handle: handle})
	if errors.Is(err, ErrInUse) {
		return nil, consoleRunning(path)
	}
	return s, err
}

// consoleRunning is the refusal of a second console, the first serving
// path.
func consoleRunning(path string) error {
	return consoleInUse{fmt.Sprintf("another approval console (%s) already serves %s; only one runs at a time: use that one, or stop it first", consolePID(path), path)}
}

// consoleInUse is ErrInUse for the console, naming the one running.
type consoleInUse struct{ why string }

func (e consoleInUse) Error() string { return e.why }
func (consoleInUse) Unwrap() error   { return ErrInUse }

// notServed is the console's refusal of a workspace it does not serve.
type notServed struct{ why string }

func (n notServed) Error() string { return n.why }

// servedWorkspace is the workspace a request line names, once serves
// accepts it: absolute and clean, or a notServed refusal.
func (s *Server) servedWorkspace(line []byte) (string, error) {
	var named struct {
		Workspace string `json:"workspace"`
	}
	if err := json.Unmarshal(line, &named); err != nil {
		return "", fmt.Errorf("request is not a valid JSON object: %w", err)
	}
	if !filepath.IsAbs(named.Workspace) {
		return "", fmt.Errorf(`field "workspace": %q is not an absolute path`, named.Workspace)
	}
	workspace := filepath.Clean(named.Workspace)
	if err := s.serves(workspace); err != nil {
		return "", notServed{"the approval console does not serve " + workspace + ": " + err.Error()}
	}
	return workspace, nil
}

// watchHangup ends a console request's context with ErrClientGone when
// its client closes the connection: the client sends nothing after its
// request, so a read ends only there (or when the server closes conn).
func (s *Server) watchHangup(conn net.Conn, hangup context.CancelCauseFunc) {
	defer s.wg.Done()
	_, _ = io.Copy(io.Discard, conn)
	hangup(ErrClientGone)
}

// askConsole is Ask's second try, after the workspace's editor did not
// answer (editorErr, an ErrNoEditor): the user's approval console. It is
// ErrNoEditor again, saying both, when the console does not answer either.
func askConsole(ctx context.Context, line []byte, editorErr error) (gate.Decision, error) {
	// Like the editors', the console's socket is looked for in every
	// directory a console of this user may listen in (dirs.go).
	d, err := exchange(ctx, line, func(ctx context.Context) (*net.UnixConn, error) {
		return dialFirst(ctx, consoleSocket)
	})
	switch {
	case errors.Is(err, ErrNoEditor):
		return d, fmt.Errorf("%w; no approval console (codewhale-ls approvals) answered either: %s", editorErr, consoleAbsence(err))
	case errors.Is(err, ErrServerGone):
		return d, fmt.Errorf("%w (it was the approval console, codewhale-ls approvals, that stopped; restart it to be asked again)", err)
	}
	return d, err
}

// consoleAbsence says why the console did not answer, without repeating
// ErrNoEditor's own words.
func consoleAbsence(err error) string {
	if err.Error() == ErrNoEditor.Error() {
		return "none is running"
	}
	return strings.TrimPrefix(err.Error(), ErrNoEditor.Error()+": ")
}
