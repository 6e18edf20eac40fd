package hardening

import (
	"strings"
)

// Launchers (docs/hardening.md, "Wrappers"): programs that start another
// program named in an option of theirs, or run a shell with the words
// after their own `--`, which the wrapper table cannot describe.

// launch inspects what a launcher runs, and says whether name is one.
func (in *inspector) launch(c *command) bool {
	name := strings.ToLower(c.name())
	var run string
	switch name {
	case "capsh":
		// capsh [options] -- ARGS runs /bin/bash ARGS.
		if i := c.index("--"); i > 0 {
			run = "bash " + c.shellWords(i+1)
		}
	case "start-stop-daemon":
		// --exec/-x or --startas/-a names the program, `--` starts its
		// arguments.
		program := c.optionValue("-x", "--exec")
		if as := c.optionValue("-a", "--startas"); as != "" {
			program = as
		}
		if program != "" {
			run = program
			if i := c.index("--"); i > 0 {
				run += " " + c.shellWords(i+1)
			}
		}
	case "gdb", "cgdb", "lldb":
		// gdb --args PROGRAM ARGS, lldb -- PROGRAM ARGS.
		for _, marker := range []string{"--args", "--"} {
			if i := c.index(marker); i > 0 {
				run = c.shellWords(i + 1)
				break
			}
		}
	default:
		return false
	}
	if strings.TrimSpace(run) != "" {
		in.line(run, c.depth+1, name)
	}
	return true
}

// index is where a known word of the command is, -1 when none is.
func (c *command) index(word string) int {
	for i := 1; i < c.open; i++ {
		if c.words[i] == word {
			return i
		}
	}
	return -1
}

// optionValue is the value of an option spelled either way (`-x V`,
// `--exec V`, `--exec=V`) as shell text, "" when the command has none.
func (c *command) optionValue(short, long string) string {
	for i := 1; i < c.open; i++ {
		w := c.words[i]
		switch {
		case w == short || w == long:
			if i+1 < len(c.words) {
				return c.shellWord(i + 1)
			}
		case strings.HasPrefix(w, long+"="):
			return Quote(w[len(long)+1:])
		}
	}
	return ""
}

// shellWord is word i as shell text: quoted when known, as written when
// built at run time, so parsing it again keeps it open.
func (c *command) shellWord(i int) string {
	if i < c.open {
		return Quote(c.words[i])
	}
	return c.words[i]
}

// shellWords are the words from i on as shell text.
func (c *command) shellWords(i int) string {
	parts := make([]string, 0, len(c.words)-i)
	for ; i < len(c.words); i++ {
		parts = append(parts, c.shellWord(i))
	}
	return strings.Join(parts, " ")
}
