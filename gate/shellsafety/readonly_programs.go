package shellsafety

import "strings"

// readOnlyProgram says which arguments keep a program read-only.
type readOnlyProgram struct {
	// args vets the arguments; nil accepts any.
	args func(args []string) bool
	// globSafe: no option of the program writes or runs anything, so an
	// unquoted glob cannot be expanded into a harmful option.
	globSafe bool
}

var anyArgs = readOnlyProgram{globSafe: true}

// readOnlyPrograms is the whole vocabulary of ReadOnly. Programs that can
// write, run other programs or change system state through some option are
// listed with a check that rejects those options; programs with no such
// option take any arguments.
var readOnlyPrograms = map[string]readOnlyProgram{
	"ls": anyArgs, "cat": anyArgs, "head": anyArgs, "tail": anyArgs, "wc": anyArgs,
	"pwd": anyArgs, "echo": anyArgs, "printf": anyArgs, "which": anyArgs,
	"whoami": anyArgs, "id": anyArgs, "uname": anyArgs, "stat": anyArgs,
	"du": anyArgs, "df": anyArgs, "cut": anyArgs, "tr": anyArgs,
	"basename": anyArgs, "dirname": anyArgs, "realpath": anyArgs,
	"grep": anyArgs, "egrep": anyArgs, "fgrep": anyArgs,

	"env":  {args: func(a []string) bool { return len(a) == 0 }},
	"rg":   {args: rejectLong("pre", "hostname-bin")}, // both run a program
	"ag":   {args: rejectLong("pager")},               // runs a program
	"file": {args: rejectOptions("C", "compile")},     // writes a magic database
	"tree": {args: rejectOptions("oR", "output")},     // -o / -R write files
	"sort": {args: rejectOptions("o", "output", "compress-program")},
	"uniq": {args: uniqArgs},
	"date": {args: dateArgs},
	"find": {args: findArgs},
	"git":  {args: gitReadOnly},
}

func rejectLong(names ...string) func([]string) bool {
	return rejectOptions("", names...)
}

// rejectOptions refuses any argument that may spell one of the short
// letters or long names.
func rejectOptions(letters string, names ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			if a == "--" {
				return true
			}
			if (letters != "" && hasShort(a, letters)) || hasLong(a, names...) {
				return false
			}
		}
		return true
	}
}

// uniqArgs: a second operand is an output file uniq overwrites.
func uniqArgs(args []string) bool {
	return len(positionals(args, "-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars")) <= 1
}

// dateArgs: -s/--set or an MMDDhhmm operand set the clock; only +FORMAT
// operands are read-only.
func dateArgs(args []string) bool {
	if !rejectOptions("s", "set")(args) {
		return false
	}
	for _, p := range positionals(args, "-d", "--date", "-f", "--file", "-r", "--reference") {
		if !strings.HasPrefix(p, "+") {
			return false
		}
	}
	return true
}

// findArgs: find's actions that run programs, delete, or write files.
func findArgs(args []string) bool {
	for _, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
	}
	return true
}
