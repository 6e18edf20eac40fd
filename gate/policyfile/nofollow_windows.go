package policyfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow refuses a symlink (or junction) found by Lstat before the
// open, as Windows has no O_NOFOLLOW; OpenNoFollow checks the opened file
// is regular afterwards. Windows has no FIFOs to block on at a file path.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return os.OpenFile(path, flag, perm)
}
