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
			if len(cmd) > 0 {
				in.line(join(cmd), depth+1, "find "+"-exec")
			}
		}
	}
}

// gitAlias inspects a git command whose subcommand is an alias set with
// -c on the same line: `git -c alias.x=push x` runs `git push`, and an
// alias starting with ! runs a shell command.
func (in *inspector) gitAlias(c *command) {
	args, depth := c.args(), c.depth
	aliases := map[string]string{}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" && i+1 < len(args):
			i++
			if k, v, ok := strings.Cut(args[i], "="); ok && strings.HasPrefix(strings.ToLower(k), "alias.") {
				aliases[strings.ToLower(k[len("alias."):])] = v
			}
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--exec-path":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			v, ok := aliases[strings.ToLower(a)]
			if !ok {
				return
			}
			rest := join(args[i+1:])
			if strings.HasPrefix(v, "!") {
				in.line(strings.TrimPrefix(v, "!")+" "+rest, depth+1, "the git alias `"+a+"`")
			} else {
				in.line("git "+v+" "+rest, depth+1, "the git alias `"+a+"`")
			}
			return
		}
	}
}

var (
	shellNames   = []string{"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "busybox"}
	wrappers     = map[string]bool{"env": true, "nice": true, "nohup": true, "timeout": true, "sudo": true, "doas": true, "command": true, "exec": true, "time": true, "stdbuf": true, "setsid": true, "ionice": true, "chrt": true, "watch": true, "unbuffer": true, "builtin": true}
	interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true, "nodejs": true, "php": true, "lua": true, "deno": true, "bun": true}
	// xargsValued are xargs's options that take a value.
	xargsValued = []string{"-n", "-I", "-i", "-P", "-d", "-L", "-l", "-s", "-E", "-e", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-lines", "--max-chars", "--replace", "--eof"}
)

func isShell(name string) bool {
	name = strings.TrimSuffix(name, ".exe")
	if slices.Contains(shellNames, name) {
		return true
	}
	// bash5, sh.static: a shell by another name.
	for _, s := range []string{"bash", "zsh", "dash", "ksh"} {
		if strings.HasPrefix(name, s) {
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

// wrapped is the command a wrapper runs.
func wrapped(name string, args []string) []string {
	switch name {
	case "env":
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir" || a == "-S":
				i++
			case strings.HasPrefix(a, "-"), strings.Contains(a, "="):
			default:
				return args[i:]
			}
		}
		return nil
	case "timeout":
		rest := afterOptions(args, []string{"-s", "-k", "--signal", "--kill-after"})
		if len(rest) > 1 {
			return rest[1:] // after the duration
		}
		return nil
	case "nice":
		return afterOptions(args, []string{"-n", "--adjustment"})
	case "sudo", "doas":
		return afterOptions(args, []string{"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"})
	case "ionice":
		return afterOptions(args, []string{"-c", "-n", "-p"})
	case "chrt":
		rest := afterOptions(args, nil)
		if len(rest) > 1 {
			return rest[1:]
		}
		return nil
	case "watch":
		return afterOptions(args, []string{"-n", "--interval", "-d"})
	case "stdbuf":
		return afterOptions(args, []string{"-i", "-o", "-e"})
	}
	return afterOptions(args, nil)
}
