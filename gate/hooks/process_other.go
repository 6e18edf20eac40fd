//go:build !unix

package hooks

import "os/exec"

func shellCommand(command string) *exec.Cmd { return exec.Command("cmd", "/C", command) }

// ownProcessGroup has no portable equivalent here; only the shell itself
// is killed on timeout.
func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
