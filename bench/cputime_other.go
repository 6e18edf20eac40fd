//go:build !unix

package main

import "time"

// processStart is when the bench began, for cpuTime where the system
// says nothing of a process's processor time.
var processStart = time.Now()

// cpuTime is, where there is no getrusage (Windows), the time since the
// bench began: a cell is then timed by the clock, as the rows say.
func cpuTime() time.Duration { return time.Since(processStart) }
