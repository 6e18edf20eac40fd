package policyfile

import (
	"io/fs"
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// fileIdentity is zero on Windows, whose FileInfo carries no file index:
// a replaced file is told apart by its content, size and time alone.
func fileIdentity(fs.FileInfo) (ino, dev uint64) { return 0, 0 }

// lockFile blocks until this handle holds an exclusive lock on the whole
// lock file, as flock does elsewhere; closing the handle releases it.
func lockFile(f *os.File) error {
	var whole windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, math.MaxUint32, math.MaxUint32, &whole)
}

// Owner cannot be read on Windows: a caller that needs the owner refuses
// the file (fail closed).
func Owner(fs.FileInfo) (uid int, ok bool) { return -1, false }
