package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// Ask sends the call to the editor's server for workspace, or, when none
// answers, to the user's approval console, each looked for in every
// directory a server of this user may listen in (searchDirs), and returns the
// final Decision (decided by the server with its snapshot, prompting the
// user where Codewhale would ask).
//
// It returns ErrNoEditor when neither listens, when the runtime
// directory is not one only we can use, or when they refused us, and
// another error (ErrServerGone, a deadline) when a server took the call
// but gave no decision: the caller denies.
func Ask(ctx context.Context, req Request) (gate.Decision, error) {
	if req.Agent == "" {
		return gate.Decision{}, errors.New("remote.Ask: Agent is required")
	}
	if req.Deadline.IsZero() {
		return gate.Decision{}, errors.New("remote.Ask: Deadline is required")
	}
	if time.Until(req.Deadline) <= ServerMargin {
		// No editor can be asked in time: the agent's own ask (where it has
		// one) may still reach a person.
		return gate.Decision{}, fmt.Errorf("%w: the agent's deadline (%s) leaves no time to ask the editor", ErrNoEditor, req.Deadline.Format(time.RFC3339))
	}
	// The wait ends at the Deadline itself: the asker's margin for its
	// own answer is already in it.
	ctx, cancel := context.WithDeadline(ctx, req.Deadline)
	defer cancel()
	line, err := encodeRequest(req)
	if err != nil {
		return gate.Decision{}, err
	}
	d, err := exchange(ctx, line, func(ctx context.Context) (*net.UnixConn, error) { return dial(ctx, req.Workspace) })
	if errors.Is(err, ErrNoEditor) {
		// No editor serves the workspace: the user's approval console
		// may (console.go).
		return askConsole(ctx, line, err)
	}
	return d, err
}

// exchange sends one request line on the connection connect makes and
// reads the one reply.
func exchange(ctx context.Context, line []byte, connect func(context.Context) (*net.UnixConn, error)) (gate.Decision, error) {
	conn, err := connect(ctx)
	if err != nil {
		return gate.Decision{}, err
	}
	defer conn.Close()
	// A cancelled ctx unblocks the read below by closing the connection.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := conn.Write(line); err != nil {
		return gate.Decision{}, fmt.Errorf("%w: %v", ErrServerGone, err)
	}
	return readReply(ctx, conn)
}

func encodeRequest(req Request) ([]byte, error) {
	call, err := gate.EncodeRequest(req.Call)
	if err != nil {
		return nil, fmt.Errorf("encoding the call: %w", err)
	}
	raw, err := json.Marshal(wireRequest{Agent: req.Agent, Session: req.Session, Workspace: req.Workspace, Deadline: req.Deadline, Call: call, NeedsHuman: req.Call.NeedsHuman})
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	if len(raw) >= maxMessage {
		return nil, fmt.Errorf("the call is larger than the %d bytes the socket carries", maxMessage)
	}
	return append(raw, '\n'), nil
}

// dial connects to workspace's server, in the first of searchDirs where
// one listens, and checks it runs as us and is codewhale-ls: an answer
// from another user's process, or from any other program of ours that
// took the socket's path, must not allow anything.
func dial(ctx context.Context, workspace string) (*net.UnixConn, error) {
	return dialFirst(ctx, socketName(workspace))
}

// dialSocket connects to the approval socket at path, with dial's checks.
func dialSocket(ctx context.Context, path string) (*net.UnixConn, error) {
	if err := checkSafeDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEditor, err)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, ErrNoEditor
		}
		return nil, fmt.Errorf("%w: %v", ErrNoEditor, err)
	}
	conn := c.(*net.UnixConn)
	if err := checkPeer(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: %v", ErrNoEditor, err)
	}
	if err := checkServerIdentity(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: %v; not asked", ErrNoEditor, err)
	}
	return conn, nil
}

func readReply(ctx context.Context, conn *net.UnixConn) (gate.Decision, error) {
	line, err := readFromCodewhaleLS(conn)
	switch {
	case errors.Is(err, errForgedReply):
		return gate.Decision{}, err
	case err != nil && ctx.Err() != nil:
		return gate.Decision{}, fmt.Errorf("the editor did not answer before the agent's deadline: %w", ctx.Err())
	case err != nil:
		return gate.Decision{}, fmt.Errorf("%w: %v", ErrServerGone, err)
	}
	return parseReply(line)
}

// parseReply reads the server's one reply line.
func parseReply(line []byte) (gate.Decision, error) {
	var r wireReply
	if err := json.Unmarshal(line, &r); err != nil {
		return gate.Decision{}, fmt.Errorf("the editor's reply is not valid JSON: %w", err)
	}
	switch {
	case r.Refused != "":
		return gate.Decision{}, fmt.Errorf("%w: %s", ErrNoEditor, r.Refused)
	case r.Error != "" && strings.Contains(r.Error, "unknown field"):
		// A server older than this hook reads fewer fields (a field it
		// skipped could have added a hold, so it refuses them all).
		return gate.Decision{}, fmt.Errorf("the editor's codewhale-ls rejected the request: %s; it is older than this codewhale-ls hook: restart the editor's codewhale-ls (or the console) so both are the same version", r.Error)
	case r.Error != "":
		return gate.Decision{}, fmt.Errorf("the editor's codewhale-ls rejected the request: %s", r.Error)
	case r.Decision == nil:
		return gate.Decision{}, errors.New("the editor's reply holds no decision")
	case r.Decision.Decision != gate.Allow && r.Decision.Decision != gate.Deny:
		return gate.Decision{}, fmt.Errorf("the editor's reply is %q, not a final allow or deny", r.Decision.Decision)
	}
	return *r.Decision, nil
}
