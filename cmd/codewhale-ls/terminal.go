package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether r is a terminal, where a person can be asked
// to confirm. A character device is not enough: /dev/null is one, and a
// command run with `< /dev/null` (CI, a script) would ask and read no
// answer instead of saying to pass --yes (issue 24, point 11); x/term asks
// the device for its terminal settings.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
