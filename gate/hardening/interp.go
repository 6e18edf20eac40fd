package hardening

import (
	"regexp"
)

var (
	// shellStrings are string literals code hands to a shell: system("…"),
	// os.system('…'), subprocess.run("…", shell=True), exec("…"),
	// child_process.execSync('…'), popen("…"), backquotes.
	shellStrings = regexp.MustCompile("(?:system|popen|exec|execSync|spawnSync|spawn|check_output|check_call|call|run|Popen|getoutput|getstatusoutput|shell_exec|passthru)\\s*\\(\\s*(?:\\[\\s*)?(?:r|b)?(\"([^\"\\\\]*)\"|'([^'\\\\]*)')|`([^`]*)`")
	// startsCommands is code that starts commands, literal or not.
	startsCommands = regexp.MustCompile(`\b(system|popen|exec|execSync|execFile|spawn|spawnSync|subprocess|child_process|os\.exec|Popen|shell_exec|passthru|proc_open|IO\.popen|Process)\b|` + "`")
)

// interpreter inspects the code an interpreter runs from its command line
// (-c, -e, -E, -r): the shell commands it starts from string literals,
// unseeable where it starts others.
func (in *inspector) interpreter(c *command) {
	name, args, depth := c.name(), c.args(), c.depth
	for i, a := range args {
		if a != "-c" && a != "-e" && a != "-E" && a != "-r" && a != "--eval" && a != "-p" && a != "--print" {
			continue
		}
		if i+1 >= len(args) {
			return
		}
		in.code(name+" "+a, args[i+1], depth)
		return
	}
}

// code inspects a program's text for the shell commands it starts.
func (in *inspector) code(via, text string, depth int) {
	literals := shellStrings.FindAllStringSubmatch(text, -1)
	for _, m := range literals {
		cmd := m[2] + m[3] + m[4]
		if cmd != "" {
			in.line(cmd, depth+1, "`"+via+"`")
		}
	}
	if len(literals) == 0 && startsCommands.MatchString(text) {
		in.unseeable("`" + via + "` runs code that starts commands codewhale-ls cannot read")
	}
}

// isInterpreter is a program that runs code given on its command line.
func isInterpreter(name string) bool { return interpreters[name] }
