package remote

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// modulePath is the main module of every codewhale-ls build.
const modulePath = "github.com/codewhale-ls/codewhale-ls"

// checkServerIdentity admits as the editor's server only a codewhale-ls
// process: the executable of the process at the other end of conn (its
// pid as the kernel recorded it when that process called listen,
// SO_PEERCRED) must be this very program, or a Go build of codewhale-ls's
// module. Any process of the user can bind the socket's path after
// unlinking ours; without this check a one-line script answering "allow"
// would stand in for the editor. The listener is not always the process
// that answers, though (a script that listens, forks a child keeping the
// socket and then execs codewhale-ls passes this check while the child
// answers), so it also asks the kernel to name the writer of every reply
// (SO_PASSCRED), which readFromCodewhaleLS checks in turn
// (docs/architecture.md, "What the approval socket protects, and what it
// does not").
func checkServerIdentity(conn *net.UnixConn) error {
	pid, err := peerPID(conn)
	if err != nil {
		return err
	}
	if err := isCodewhaleLS("/proc/" + strconv.Itoa(pid) + "/exe"); err != nil {
		return err
	}
	return passCredentials(conn)
}

// passCredentials asks the kernel to attach, to every read from conn, the
// credentials of the process that wrote those bytes (SO_PASSCRED,
// unix(7)): on a stream socket it fills in the writer's pid and uid when
// the writer sends, whatever the writer does, and one read never joins
// the writes of two processes.
func passCredentials(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var setErr error
	if err := raw.Control(func(fd uintptr) {
		setErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PASSCRED, 1)
	}); err != nil {
		return err
	}
	if setErr != nil {
		return fmt.Errorf("asking for the credentials of the server's replies (SO_PASSCRED): %w", setErr)
	}
	return nil
}

// readFromCodewhaleLS reads one reply line (at most maxMessage bytes and
// its newline) from conn, each part of which a codewhale-ls process of
// this user wrote, as the kernel names the writer of each read
// (SCM_CREDENTIALS, asked for by passCredentials). A part without
// credentials, or written by another user or by a process that is not
// codewhale-ls, is errForgedReply: the reply is no answer. An error
// reading is returned as it is, io.EOF when the server closed first.
func readFromCodewhaleLS(conn *net.UnixConn) ([]byte, error) {
	var line []byte
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	admitted := map[int32]bool{} // writers already checked
	for {
		n, oobn, flags, _, err := conn.ReadMsgUnix(buf, oob)
		if n > 0 {
			if err := checkWriter(oob[:oobn], flags, admitted); err != nil {
				return nil, err
			}
			line = append(line, buf[:n]...)
			if end := bytes.IndexByte(line, '\n'); end >= 0 {
				return line[:end+1], nil
			}
			if len(line) > maxMessage {
				return nil, fmt.Errorf("the reply is longer than %d bytes", maxMessage)
			}
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, io.EOF
		}
	}
}

// checkWriter admits the writer of one read, named by its control
// message oob: a codewhale-ls process running as this user.
func checkWriter(oob []byte, flags int, admitted map[int32]bool) error {
	if flags&unix.MSG_CTRUNC != 0 {
		return fmt.Errorf("%w: its writer's credentials were cut short", errForgedReply)
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return fmt.Errorf("%w: its control message cannot be read: %v", errForgedReply, err)
	}
	var cred *unix.Ucred
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_CREDENTIALS {
			if cred, err = unix.ParseUnixCredentials(&m); err != nil {
				return fmt.Errorf("%w: its writer's credentials cannot be read: %v", errForgedReply, err)
			}
		}
	}
	switch {
	case cred == nil:
		return fmt.Errorf("%w: it carries no credentials of its writer", errForgedReply)
	case cred.Pid <= 0:
		// 0: the writer is outside this process's pid namespace.
		return fmt.Errorf("%w: its writer's process cannot be seen from here", errForgedReply)
	case admitted[cred.Pid]:
		return nil
	}
	if err := samePeer(int(cred.Uid), os.Getuid()); err != nil {
		return fmt.Errorf("%w: its writer %v", errForgedReply, err)
	}
	if err := isCodewhaleLS("/proc/" + strconv.Itoa(int(cred.Pid)) + "/exe"); err != nil {
		return fmt.Errorf("%w: its writer, process %d, is not the server that listens (%v)", errForgedReply, cred.Pid, err)
	}
	admitted[cred.Pid] = true
	return nil
}

// isCodewhaleLS reports whether exe (a /proc/PID/exe link) is this
// program or a build of codewhale-ls.
func isCodewhaleLS(exe string) error {
	peer, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("the socket's server cannot be identified: %v", err)
	}
	if self, err := os.Stat("/proc/self/exe"); err == nil && os.SameFile(self, peer) {
		return nil
	}
	if !peer.Mode().IsRegular() {
		return fmt.Errorf("the socket's server runs %s, which is not a regular file", exe)
	}
	info, err := buildinfo.ReadFile(exe)
	if err != nil {
		return fmt.Errorf("the socket's server is not codewhale-ls (its program is not a Go build: %v)", err)
	}
	if info.Main.Path != modulePath {
		return fmt.Errorf("the socket's server is not codewhale-ls (its program is a build of %q)", info.Main.Path)
	}
	return nil
}

// peerPID is the pid of the process at the other end of conn, as the
// kernel recorded it at connect (SO_PEERCRED).
func peerPID(conn *net.UnixConn) (int, error) {
	cred, err := peerCred(conn)
	if err != nil {
		return -1, err
	}
	return int(cred.Pid), nil
}

// peerCred reads SO_PEERCRED.
func peerCred(conn *net.UnixConn) (*unix.Ucred, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	return cred, nil
}
