//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

func shellCommand(command string) *exec.Cmd { return exec.Command("sh", "-c", command) }

// ownProcessGroup lets a timeout kill everything the hook started.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
