package hardening

import "regexp"

// The languages not yet read by a scanner keep the patterns of before.
var php = &language{name: "php"}
var lua = &language{name: "lua"}

func oldRun(args []string) run {
	for i, a := range args {
		if a != "-c" && a != "-e" && a != "-E" && a != "-r" && a != "--eval" && a != "-p" && a != "--print" {
			continue
		}
		if i+1 >= len(args) {
			return run{none: true}
		}
		return run{code: []string{args[i+1]}, flag: a}
	}
	return run{none: true}
}

func phpRun(args []string) run { return oldRun(args) }
func luaRun(args []string) run { return oldRun(args) }

var (
	shellStrings   = regexp.MustCompile("(?:system|popen|exec|execSync|spawnSync|spawn|check_output|check_call|call|run|Popen|getoutput|getstatusoutput|shell_exec|passthru)\\s*\\(\\s*(?:\\[\\s*)?(?:r|b)?(\"([^\"\\\\]*)\"|'([^'\\\\]*)')|`([^`]*)`")
	startsCommands = regexp.MustCompile(`\b(system|popen|exec|execSync|execFile|spawn|spawnSync|subprocess|child_process|os\.exec|Popen|shell_exec|passthru|proc_open|IO\.popen|Process)\b|` + "`")
)

func (in *inspector) oldCode(via, text string, depth int) {
	literals := shellStrings.FindAllStringSubmatch(text, -1)
	for _, m := range literals {
		cmd := m[2] + m[3] + m[4]
		if cmd != "" {
			in.line(cmd, depth+1, via)
		}
	}
	if len(literals) == 0 && startsCommands.MatchString(text) {
		in.unseeable(via + " runs code that starts commands codewhale-ls cannot read")
	}
}
