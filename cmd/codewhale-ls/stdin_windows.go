//go:build windows

package main

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// interruptible is r: only Unix descriptors are switched to non-blocking
// reads (see stdin_unix.go).
func interruptible(r io.Reader) io.Reader { return r }

// isTTY reports whether r is a console.
func isTTY(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
