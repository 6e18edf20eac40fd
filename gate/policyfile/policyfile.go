// Package policyfile opens and reads policy files safely. A repository the
// agent works in, or a broken disk, decides what sits at a policy path: a
// FIFO would block an ordinary open or read forever, a device or a sparse
// file of gigabytes would be read until memory runs out. Every loader and
// the watcher read through here, so none of them can hang or blow up, and
// each such file is reported the way Codewhale reports a file it cannot
// read. The files codewhale-ls itself writes are opened (OpenNoFollow) and
// replaced (Rewrite, Rewriter, LockExclusive) here too, never through a
// symlink and never losing an editor's save, so that whatever writes a
// policy or settings file (approvals, agents/install, check --fix) needs
// nothing but this package (docs/architecture.md).
package policyfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// MaxBytes is the largest policy file read: far above any real policy
// (Codewhale itself ignores a constitution.json over 100 KiB and a
// hooks.toml over 1 MiB), far below what would strain memory.
const MaxBytes = 16 << 20

// ErrNotRegular is why a directory, FIFO, socket or device is not read.
var ErrNotRegular = errors.New("is not a regular file")

// ErrTooLarge is why a file over MaxBytes is not read.
var ErrTooLarge = fmt.Errorf("is larger than %d bytes", MaxBytes)

// open opens path (following symlinks) for reading if it is a regular
// file of at most MaxBytes, without ever blocking: the path is checked
// first, then opened non-blocking (and never as a controlling terminal),
// and the opened file is checked again, as the path may have been
// replaced in between.
func open(path string) (*os.File, error) {
	if err := check(os.Stat(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	if err := check(f.Stat()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func check(fi fs.FileInfo, err error) error {
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))
	case fi.Size() > MaxBytes:
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, fi.Size())
	}
	return nil
}

// Kind names what a file that is not regular is ("a FIFO", "a
// directory"), for errors that refuse it.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// Read returns the contents of the regular file at path, following
// symlinks, without ever blocking and at most MaxBytes: anything else is
// ErrNotRegular or ErrTooLarge (also a file that grows past MaxBytes while
// it is read). A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func Read(path string) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f)
}

// ReadAll reads r to its end, at most MaxBytes (a policy file's contents
// from elsewhere, e.g. git's object store).
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w (it grew while it was read)", ErrTooLarge)
	}
	return data, nil
}

// OpenNoFollow opens a file codewhale-ls itself writes (permissions.toml
// for an "always" grant, its lock, the decision log) with flag and perm,
// without following a symlink and without blocking on a FIFO or device
// planted there, and refuses anything but a regular file: writing through
// a link would change a file the user did not name (Codewhale refuses
// approval saves to a symlinked permissions.toml), and opening a FIFO
// blocks until someone opens its other end.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag, perm)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s is a symlink, which codewhale-ls never writes through", path)
	case errors.Is(err, syscall.ENXIO):
		return nil, fmt.Errorf("%s %w", path, ErrNotRegular)
	case err != nil:
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s %w (%s)", path, ErrNotRegular, Kind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// SeparatorAfter is what makes src end in one blank line before appended
// text ("" for an empty file): the approval card's "always" rules and
// init's starter policy are appended after it. The file's own line ends
// stay; ours are "\n".
func SeparatorAfter(src []byte) string {
	text := string(src)
	switch {
	case text == "":
		return ""
	case !strings.HasSuffix(text, "\n"):
		return "\n\n"
	}
	lastLineBody := strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	if lastLineBody == "" || strings.HasSuffix(lastLineBody, "\n") {
		return ""
	}
	return "\n"
}
