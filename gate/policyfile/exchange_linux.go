package policyfile

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// errNoAtomicInstall is why the file system cannot exchange or
// no-replace rename (some network and overlay file systems).
var errNoAtomicInstall = errors.New("the file system cannot exchange files atomically")

func exchangeFiles(a, b string) error {
	return atomicRename(a, b, unix.RENAME_EXCHANGE)
}

func renameNoReplace(from, to string) error {
	return atomicRename(from, to, unix.RENAME_NOREPLACE)
}

func atomicRename(from, to string, flags uint) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, flags)
	switch {
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return errNoAtomicInstall
	case errors.Is(err, unix.EEXIST):
		return fs.ErrExist
	}
	return err
}
