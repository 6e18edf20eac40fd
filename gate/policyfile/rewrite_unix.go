//go:build unix

package policyfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// fileIdentity is the inode and device of fi, so a file replaced by
// another of the same size and time is still told apart.
func fileIdentity(fi fs.FileInfo) (ino, dev uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, uint64(st.Dev)
	}
	return 0, 0
}

// Owner is the uid owning the file fi describes; false where the
// platform has none to read.
func Owner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}

// lockFile blocks until this descriptor holds the exclusive flock.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
