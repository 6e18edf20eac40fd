package hardening

import (
	"regexp"
	"strings"
)

// sed inspects a sed script for its e command and s///e flag, which run
// text as a shell command.
func (in *inspector) sed(c *command) {
	args, depth := c.args(), c.depth
	var scripts []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
			}
			i++
		case a == "-f" || a == "--file":
			in.unseeable("sed runs a script from a file")
			return
		case strings.HasPrefix(a, "-"):
		case len(scripts) == 0:
			scripts = append(scripts, a)
			i = len(args)
		}
	}
	for _, s := range scripts {
		for _, m := range sedExecute.FindAllStringSubmatch(s, -1) {
			if cmd := strings.TrimSpace(m[1]); cmd != "" {
				in.line(cmd, depth+1, "sed's e command")
			} else {
				in.unseeable("sed's e command runs its pattern space as a shell command")
			}
		}
		if substitutesAndRuns(s) {
			in.unseeable("sed's s///e runs what it substitutes as a shell command")
		}
	}
}

var sedExecute = regexp.MustCompile(`(?m)(?:^|;|\n)\s*(?:\d+|/[^/]*/|\$)?\s*e(?:\s+([^;\n]*))?(?:;|$)`)

// substitutesAndRuns says whether a sed script has an s command with the
// e flag, read command by command (s, its delimiter, two parts with their
// escapes, then the flags).
func substitutesAndRuns(script string) bool {
	for _, cmd := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' }) {
		cmd = strings.TrimLeft(strings.TrimSpace(cmd), "0123456789,$ ")
		if len(cmd) < 2 || cmd[0] != 's' {
			continue
		}
		delim, i, parts := cmd[1], 2, 0
		for ; i < len(cmd) && parts < 2; i++ {
			switch cmd[i] {
			case '\\':
				i++
			case delim:
				parts++
			}
		}
		if parts == 2 && strings.ContainsRune(cmd[i:], 'e') {
			return true
		}
	}
	return false
}
