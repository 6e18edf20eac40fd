//go:build !unix

// Package procgroup starts a child in its own process group, so that
// killing it on a timeout also kills everything it started.
package procgroup

import "os/exec"

// Own has no portable equivalent here; only the child itself is killed.
func Own(*exec.Cmd) {}

// Kill kills cmd.
func Kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
