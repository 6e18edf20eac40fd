package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// SocketPath is where the server for workspace listens: one socket per
// workspace root, named by a hash of it (a path can be longer than a
// socket name may be), in the user's runtime directory. It does not create
// the directory; Listen does.
func SocketPath(workspace string) (string, error) {
	dir, err := runtimeDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, socketName(workspace))
	if len(path) >= maxSocketPath {
		return "", fmt.Errorf("approval socket path %s is %d bytes, longer than a socket address may be (%d): set XDG_RUNTIME_DIR or TMPDIR to a shorter directory", path, len(path), maxSocketPath-1)
	}
	return path, nil
}

// socketName is the name of workspace's socket in a runtime directory.
func socketName(workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return hex.EncodeToString(sum[:12]) + ".sock"
}

// maxSocketPath is the size of sun_path on macOS, the smallest of the
// platforms (Linux has 108); the name must fit with its terminating NUL.
const maxSocketPath = 104

// runtimeDir is $XDG_RUNTIME_DIR/codewhale-ls, or, without a runtime
// directory, codewhale-ls-UID in the temporary directory, which other users
// can write to: hence the uid in the name and the checks of safeDir.
func runtimeDir() (string, error) {
	if base := os.Getenv("XDG_RUNTIME_DIR"); base != "" {
		if !filepath.IsAbs(base) {
			return "", fmt.Errorf("XDG_RUNTIME_DIR %q is not an absolute path", base)
		}
		return filepath.Join(base, "codewhale-ls"), nil
	}
	return filepath.Join(os.TempDir(), "codewhale-ls-"+strconv.Itoa(os.Getuid())), nil
}

// makeSafeDir creates dir (mode 0700) unless it exists, then checks it is
// one only we can use.
func makeSafeDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating the approval socket directory: %w", err)
	}
	return checkSafeDir(dir)
}

// checkSafeDir refuses a directory another user could have planted or can
// enter: a symlink (never followed), a non-directory, one owned by another
// uid, or one with any group or other permission bit.
func checkSafeDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return dirSafety(dir, info, os.Getuid())
}

func dirSafety(dir string, info fs.FileInfo, uid int) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("approval socket directory %s is a symlink; refusing it", dir)
	}
	if !info.IsDir() {
		return fmt.Errorf("approval socket directory %s is not a directory; refusing it", dir)
	}
	owner, ok := policyfile.Owner(info)
	if !ok || owner != uid {
		return fmt.Errorf("approval socket directory %s is owned by uid %d, not by us (uid %d); refusing it", dir, owner, uid)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("approval socket directory %s has mode %#o; only 0700 is safe, refusing it", dir, perm)
	}
	return nil
}
