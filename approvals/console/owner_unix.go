//go:build unix

package console

import (
	"io/fs"
	"syscall"
)

// fileOwner is the uid owning a file.
func fileOwner(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}
