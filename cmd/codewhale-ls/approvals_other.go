//go:build !unix

package main

import (
	"fmt"
	"io"
)

// approvalsCommand: the console's socket and terminal handling are Unix
// only, as the hooks' approval sockets are.
func approvalsCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "codewhale-ls approvals: the approval console runs on Linux and macOS only")
	return 1
}
