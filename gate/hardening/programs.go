package hardening

import (
	"slices"
	"strings"
)

// findExec inspects the commands find -exec, -execdir, -ok and -okdir run.
func (in *inspector) findExec(c *command) {
	args, depth := c.args(), c.depth
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			var cmd []string
			for i++; i < len(args) && args[i] != ";" && args[i] != "+"; i++ {
				if args[i] != "{}" {
					cmd = append(cmd, args[i])
				}
			}
			// Words built at run time go on to the command as written, so
			// what it runs stays open (find … -exec perl -pe "s/$1/$2/" {} +).
			tail := ""
			if i >= len(args) {
				tail = openTail(c)
			}
			if len(cmd) > 0 || tail != "" {
				in.line(join(cmd)+tail, depth+1, "find -exec")
			}
		}
	}
}

var (
	// shellNames are shells; busybox is a wrapper (wrappers.go): it runs
	// the applet its first word names, sh among them.
	shellNames = []string{"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish"}
)

func isShell(name string) bool {
	name = strings.TrimSuffix(name, ".exe")
	if slices.Contains(shellNames, name) {
		return true
	}
	// bash5, bash-5.2, sh.static, zsh-static: a shell by its version or
	// build; bash_command is another program.
	for _, s := range []string{"bash", "zsh", "dash", "ksh", "sh"} {
		if rest, ok := strings.CutPrefix(name, s); ok && strings.Trim(rest, "0123456789.-") == "" || ok && (rest == ".static" || rest == "-static") {
			return true
		}
	}
	return false
}

// afterOptions is args after the leading options, skipping the value of
// each option in valued.
func afterOptions(args []string, valued []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:]
		case slices.Contains(valued, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return args[i:]
		}
	}
	return nil
}
