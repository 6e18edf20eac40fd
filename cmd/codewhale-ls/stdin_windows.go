//go:build windows

package main

import "io"

// interruptible is r: only Unix descriptors are switched to non-blocking
// reads (see stdin_unix.go).
func interruptible(r io.Reader) io.Reader { return r }
