package shellsafety

import "strings"

func readOnly(p *parsed) bool {
	if !p.complete || !p.pipesOnly || p.expands || p.controlBytes {
		return false
	}
	for _, s := range p.stages {
		if !readOnlyCommand(p.words(s), s) {
			return false
		}
	}
	return true
}

// readOnlyCommand vets one stage's argv, whose glob flags s carries.
func readOnlyCommand(argv []string, s stage) bool {
	if s.nameGlobs {
		return false
	}
	name, args := argv[0], argv[1:]
	if len(args) == 1 && isInfoFlag(args[0]) && plainProgramName(name) {
		return true
	}
	p, ok := readOnlyPrograms[name]
	if !ok || !p.globSafe && s.argGlobs {
		return false
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
