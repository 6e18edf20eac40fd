//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalDevice asks the device for its terminal settings, which only a
// terminal has.
func terminalDevice(f *os.File, _ os.FileInfo) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}
