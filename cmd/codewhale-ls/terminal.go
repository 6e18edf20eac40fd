package main

import (
	"io"
	"os"
)

// isTerminal reports whether r is a terminal, where a person can be asked
// to confirm. A character device is not enough: /dev/null is one, and a
// command run with `< /dev/null` (CI, a script) would ask and read no
// answer instead of saying to pass --yes (issue 24, point 11).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return terminalDevice(f, fi)
}
