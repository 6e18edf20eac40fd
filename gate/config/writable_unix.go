//go:build unix

package config

import (
	"errors"
	"io/fs"
	"syscall"
)

// writable reports whether this process may write path; a path that does
// not exist yet counts as writable (the save creates it or says why not).
func writable(path string) bool {
	err := syscall.Access(path, accessWrite)
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

// accessWrite is access(2)'s W_OK.
const accessWrite = 0x2
