//go:build unix

// Package procgroup starts a child in its own process group, so that
// killing it on a timeout also kills everything it started (a hook's
// shell, a `codewhale --version` launcher script).
package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, once started, the leader of a new process group.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill kills cmd's whole process group.
func Kill(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
