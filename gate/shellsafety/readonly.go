package shellsafety

import "strings"

// ReadOnly is Codewhale's strict parallel read-only classifier (pipeline.md
// §4.2 bash row, §6.2 Shell risk). The spec leaves its rules open; this one
// is deliberately narrow: one command or a pipeline of commands, each a
// known read-only program with arguments that cannot make it write, run
// another program or reach outside its input.
//
// Refused outright: ; && || & newline CR NUL, any redirection, subshells,
// `$` or backticks outside single quotes (a variable could carry a flag such
// as `-delete`), an open quote, and wrappers of any kind (sudo, env VAR=…).
// Unquoted glob or brace characters are allowed only for programs none of
// whose options is unsafe, because a file name like `-delete` could be
// expanded into an option.
func ReadOnly(command string) bool {
	if strings.ContainsAny(command, "\x00\n\r") {
		return false
	}
	lx := lex(command)
	if !lx.complete {
		return false
	}
	var stages [][]word
	var stage []word
	for _, t := range lx.tokens {
		switch {
		case t.op == "":
			if t.word.expands {
				return false
			}
			stage = append(stage, t.word)
		case t.op == opPipe && len(stage) > 0:
			stages = append(stages, stage)
			stage = nil
		default:
			return false
		}
	}
	if len(stage) == 0 {
		return false
	}
	for _, s := range append(stages, stage) {
		if !readOnlyCommand(s) {
			return false
		}
	}
	return true
}

func readOnlyCommand(words []word) bool {
	name := words[0]
	if name.globs {
		return false
	}
	args := texts(words[1:])
	if len(args) == 1 && isInfoFlag(args[0]) && plainProgramName(name.text) {
		return true
	}
	p, ok := readOnlyPrograms[name.text]
	if !ok {
		return false
	}
	if !p.globSafe {
		for _, w := range words[1:] {
			if w.globs {
				return false
			}
		}
	}
	return p.args == nil || p.args(args)
}

// isInfoFlag: `<anything> --version` and friends only print and exit.
func isInfoFlag(arg string) bool {
	return arg == "--version" || arg == "-V" || arg == "--help"
}

// plainProgramName is a bare command name: no path, no assignment, no
// shell syntax, not an option.
func plainProgramName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			return false
		}
	}
	return true
}
