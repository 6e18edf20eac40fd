package remote

import (
	"debug/buildinfo"
	"fmt"
	"net"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// modulePath is the main module of every codewhale-ls build.
const modulePath = "github.com/codewhale-ls/codewhale-ls"

// checkServerIdentity admits as the editor's server only a codewhale-ls
// process: the executable of the process at the other end of conn (its
// pid as the kernel recorded it at connect) must be this very program, or
// a Go build of codewhale-ls's module. Any process of the user can bind
// the socket's path after unlinking ours; without this check a one-line
// script answering "allow" would stand in for the editor
// (docs/architecture.md, "What the approval socket protects").
func checkServerIdentity(conn *net.UnixConn) error {
	pid, err := peerPID(conn)
	if err != nil {
		return err
	}
	return isCodewhaleLS("/proc/" + strconv.Itoa(pid) + "/exe")
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
