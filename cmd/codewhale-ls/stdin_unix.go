//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// interruptible returns stdin in a form whose Close ends a Read blocked on
// it. A pipe or socket read in blocking mode cannot be interrupted, so the
// server, told to exit, would wait for a close the client never makes
// (Neovim keeps the pipe open until the process ends). In non-blocking
// mode Go's poller owns the descriptor and Close wakes the reader. Only
// pipes and sockets are switched: a terminal's mode is shared with the
// shell, and a regular file never blocks.
func interruptible(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return r
	}
	fd := f.Fd()
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		return r
	}
	return os.NewFile(fd, f.Name())
}
