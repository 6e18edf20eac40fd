//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the processor time this process has used (user and system,
// every thread: the garbage collector's work included). A hostile cell
// is timed by it rather than by the clock, which on a shared machine
// under load counts other programs' turns as well.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		fail(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
