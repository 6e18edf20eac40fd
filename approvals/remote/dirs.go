package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// A server (an editor's, the console) listens in runtimeDir, which depends
// on its environment: a desktop session has XDG_RUNTIME_DIR
// (/run/user/UID, made by systemd-logind), an SSH login without
// systemd-logind (no PAM session, a container) has none and falls back to
// the temporary directory. An agent and its approver are often started
// from different sessions (the agent on the desktop, the console over
// SSH, or the other way round), so a hook looks in every directory a
// server of this user may listen in, not only its own (docs/architecture.md,
// the approval socket's "Where.").

// searchDirs is where a hook looks for a server's socket, in order: its
// own runtimeDir first, then the other directory a server in another
// session uses — systemd-logind's /run/user/UID (Linux, when the hook has
// no XDG_RUNTIME_DIR; one set to anything else is a choice the hook keeps)
// or codewhale-ls-UID in the temporary directory. Each is trusted only as
// runtimeDir is: dialSocket checks it is ours alone.
func searchDirs() ([]string, error) {
	own, err := runtimeDir()
	if err != nil {
		return nil, err
	}
	return candidateDirs(own, os.Getenv("XDG_RUNTIME_DIR") != "", os.TempDir(), os.Getuid(), runtime.GOOS), nil
}

// candidateDirs is searchDirs for a hook whose runtimeDir is own (from
// XDG_RUNTIME_DIR when hasXDG), with the temporary directory tmp, as uid
// on goos.
func candidateDirs(own string, hasXDG bool, tmp string, uid int, goos string) []string {
	dirs := []string{own}
	if !hasXDG && goos == "linux" {
		dirs = append(dirs, filepath.Join("/run/user", strconv.Itoa(uid), "codewhale-ls"))
	}
	if fallback := filepath.Join(tmp, "codewhale-ls-"+strconv.Itoa(uid)); fallback != own {
		dirs = append(dirs, fallback)
	}
	return dirs
}

// dialFirst connects to the first server that listens on a socket called
// name in searchDirs, with dialSocket's checks. A directory or socket
// that is absent, or a socket nobody listens on, is passed over quietly;
// one refused (not ours alone, a path too long, another program) is
// passed over too, and its reason is in the ErrNoEditor returned when no
// directory had a server.
func dialFirst(ctx context.Context, name string) (*net.UnixConn, error) {
	dirs, err := searchDirs()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEditor, err)
	}
	var refused []string
	for _, dir := range dirs {
		path := filepath.Join(dir, name)
		if len(path) >= maxSocketPath {
			refused = append(refused, fmt.Sprintf("approval socket path %s is %d bytes, longer than a socket address may be (%d): set XDG_RUNTIME_DIR or TMPDIR to a shorter directory", path, len(path), maxSocketPath-1))
			continue
		}
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			continue // no server has run here (or its directory is gone)
		}
		conn, err := dialSocket(ctx, path)
		if err == nil {
			return conn, nil
		}
		if err.Error() != ErrNoEditor.Error() {
			refused = append(refused, strings.TrimPrefix(err.Error(), ErrNoEditor.Error()+": "))
		}
		if ctx.Err() != nil {
			break
		}
	}
	if len(refused) == 0 {
		return nil, ErrNoEditor
	}
	return nil, fmt.Errorf("%w: %s", ErrNoEditor, strings.Join(refused, "; "))
}

// consoleElsewhere is the socket of a live console of this user in one
// of searchDirs other than own's directory, or "": a console started
// from another session, which a hook may find before the one at own.
func consoleElsewhere(own string) string {
	dirs, err := searchDirs()
	if err != nil {
		return ""
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, consoleSocket)
		if dir == filepath.Dir(own) || len(path) >= maxSocketPath {
			continue
		}
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := dialSocket(ctx, path)
		cancel()
		if err == nil {
			conn.Close()
			return path
		}
	}
	return ""
}
