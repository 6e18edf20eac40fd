//go:build !unix

package hooks

import "os/exec"

func shellCommand(command string) *exec.Cmd { return exec.Command("cmd", "/C", command) }
