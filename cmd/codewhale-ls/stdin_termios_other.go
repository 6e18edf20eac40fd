//go:build unix && !(darwin || dragonfly || freebsd || netbsd || openbsd)

package main

import "golang.org/x/sys/unix"

// ioctlReadTermios reads a terminal's settings (isTTY).
const ioctlReadTermios = unix.TCGETS
