package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

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

// confirmed asks question and reads a yes, unless --yes already gave it.
// Without a terminal nobody can answer: it says to pass --yes instead.
// On false it has said that nothing changed (what says it: "written",
// "recorded").
func confirmed(yes, terminal bool, stdin io.Reader, stderr io.Writer, question, what string) bool {
	if yes {
		return true
	}
	if !terminal {
		fmt.Fprintf(stderr, "nothing was %s: standard input is not a terminal, so nobody can confirm; pass --yes\n", what)
		return false
	}
	fmt.Fprintf(stderr, "%s [y/N] ", question)
	answer, _ := bufio.NewReader(io.LimitReader(stdin, 256)).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		fmt.Fprintf(stderr, "nothing was %s (--yes does it without asking)\n", what)
		return false
	}
	return true
}
