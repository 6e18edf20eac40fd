//go:build unix

package policyfile

import (
	"os"
	"syscall"
)

// openNoFollow lets the kernel refuse a symlink (ELOOP) and a FIFO with no
// writer (ENXIO for a write-only open) in the open itself.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, perm)
}
