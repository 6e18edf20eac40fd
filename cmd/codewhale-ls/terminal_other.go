//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// terminalDevice takes a character device other than the null device for
// a terminal where termios cannot be asked.
func terminalDevice(_ *os.File, fi os.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
