package hardening

import (
	"path"
	"regexp"
	"strings"
)

// awk inspects an awk program's system() calls and pipes to commands.
func (in *inspector) awk(c *command) {
	args, depth := c.args(), c.depth
	program := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-f":
			in.unseeable("awk runs a program from a file")
			return
		case a == "-F" || a == "-v":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			program = a
			i = len(args)
		}
	}
	for _, m := range awkCommands.FindAllStringSubmatch(program, -1) {
		in.line(m[1]+m[2], depth+1, "awk")
	}
	// print "…" | "sh": the printed text is the shell's code.
	for _, m := range awkPrintToShell.FindAllStringSubmatch(program, -1) {
		if isShell(path.Base(strings.Fields(m[2] + " x")[0])) {
			in.line(m[1], depth+1, "awk printing into "+m[2])
		}
	}
	if awkDynamic.MatchString(program) {
		in.unseeable("awk runs a command it builds when it runs")
	}
}

var (
	awkCommands     = regexp.MustCompile(`system\s*\(\s*"([^"\\]*)"\s*\)|\|\s*"([^"\\]*)"`)
	awkPrintToShell = regexp.MustCompile(`print(?:f)?\s*\(?\s*"([^"\\]*)"\s*\)?\s*\|\s*"([^"\\]*)"`)
	awkDynamic      = regexp.MustCompile(`system\s*\(\s*[^")\s]|\|\s*[^"\s|&]`)
)
