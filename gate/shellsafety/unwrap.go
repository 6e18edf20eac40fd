package shellsafety

import (
	"path"
	"slices"
	"strings"
)

// maxNesting is how many wrappers and `sh -c` levels the analyzer follows;
// a command nested deeper is rated Dangerous rather than left unread.
const maxNesting = 8

// wrapperValueOptions lists, per wrapper, the options whose value is the
// next word. The spec names two wrapper lists (the analyzer's and the
// destructive-like test's); both tests peel their union, which can only
// find more of the wrapped command.
var wrapperValueOptions = map[string][]string{
	"sudo": {"-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R",
		"--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type",
		"--other-user", "--command-timeout", "--chroot"},
	"doas":    {"-u", "-C"},
	"nice":    {"-n", "--adjustment"},
	"ionice":  {"-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"},
	"stdbuf":  {"-i", "-o", "-e", "--input", "--output", "--error"},
	"timeout": {"-s", "-k", "--signal", "--kill-after"},
	"time":    {"-f", "-o", "--format", "--output"},
	"xargs": {"-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter",
		"--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
	"env":     {"-u", "-C", "--unset", "--chdir"},
	"command": nil,
	"nohup":   nil,
	"setsid":  nil,
	"exec":    nil,
}

// shellKeywords open a compound command; the command after them runs.
var shellKeywords = []string{"!", "{", "}", "if", "then", "else", "elif", "do", "while", "until"}

// unwrap strips what runs the real command of argv: leading VAR=value
// assignments, shell keywords, and wrapper programs with their options (a
// timeout's duration, env's assignments and `-S` string). levels counts the
// wrappers removed.
func unwrap(argv []string) (rest []string, levels int) {
	for len(argv) > 0 {
		head := argv[0]
		switch {
		case isAssignment(head) || slices.Contains(shellKeywords, head):
			argv = argv[1:]
			continue
		}
		values, ok := wrapperValueOptions[path.Base(head)]
		if !ok {
			return argv, levels
		}
		levels++
		argv = skipWrapperOptions(path.Base(head), argv[1:], values)
	}
	return argv, levels
}

func skipWrapperOptions(wrapper string, args, values []string) []string {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			args = args[1:]
			return skipWrapperOperands(wrapper, args)
		case wrapper == "env" && (a == "-S" || a == "--split-string") && len(args) > 1:
			// env -S splits its value into the command line it runs.
			return append(splitWords(args[1]), args[2:]...)
		case wrapper == "env" && (strings.HasPrefix(a, "--split-string=") || strings.HasPrefix(a, "-S") && len(a) > 2):
			_, v, found := strings.Cut(a, "=")
			if !found {
				v = a[2:]
			}
			return append(splitWords(v), args[1:]...)
		case len(a) > 1 && a[0] == '-':
			args = args[1:]
			if slices.Contains(values, a) && len(args) > 0 {
				args = args[1:]
			}
		default:
			return skipWrapperOperands(wrapper, args)
		}
	}
	return args
}

// skipWrapperOperands removes the operands a wrapper takes before the
// command: timeout's duration, env's assignments.
func skipWrapperOperands(wrapper string, args []string) []string {
	switch wrapper {
	case "timeout":
		if len(args) > 0 {
			return args[1:]
		}
	case "env":
		for len(args) > 0 && isAssignment(args[0]) {
			args = args[1:]
		}
	}
	return args
}

// isAssignment reports a NAME=value word.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"}

// shellPayload returns the script of `sh -c '<script>'` (also `bash -lc`,
// `bash -e -c`): the first argument after an option cluster holding `c`.
func shellPayload(argv []string) (string, bool) {
	if len(argv) == 0 || !slices.Contains(shells, path.Base(argv[0])) {
		return "", false
	}
	for i, a := range argv[1:] {
		if strings.HasPrefix(a, "--") {
			continue
		}
		if !isShortCluster(a) {
			return "", false
		}
		if strings.Contains(a, "c") && i+2 < len(argv) {
			return argv[i+2], true
		}
	}
	return "", false
}

// programName is the name a command runs as, without its directory.
func programName(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return path.Base(argv[0])
}
