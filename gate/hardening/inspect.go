package hardening

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Finding is one command a line will run that the engine should judge on
// its own, or one place where the line runs code nobody can read.
type Finding struct {
	// Command is the command as it will run, for the engine to judge; ""
	// for an unseeable finding.
	Command string
	// Why says how the command hides in the line as written, for the
	// trace: "`rm -fr /` is `rm -rf /` with its flags in another order".
	Why string
	// Unseeable, when not empty, is why the line runs code that cannot be
	// read (a command word built at run time, a shell fed by a pipe from a
	// program, dynamic code): a person must decide.
	Unseeable string
}

// maxDepth bounds how deep shells in shells are followed; deeper is
// unseeable.
const maxDepth = 32

// maxBraceFields bounds the words one brace expansion may make before
// what it makes counts as built at run time.
const maxBraceFields = 1024

// maxFindings bounds the findings of one line (a line of 10,000 commands
// is judged by its first findings and then held for a person).
const maxFindings = 4096

// Inspect is every command line runs that its written form hides. A line
// bash cannot parse runs nothing and gives no finding.
func Inspect(line string) (found []Finding) {
	if plain(line) {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			// A line that trips the parser is one nobody here can read.
			found = []Finding{{Unseeable: fmt.Sprintf("codewhale-ls could not read the line (%v)", r)}}
		}
	}()
	in := &inspector{aliases: map[string]string{}, shells: map[string]bool{}, seen: map[Finding]bool{}}
	in.line(line, 0, "")
	return in.found
}

// plain is a line of plain words and nothing that could hide a command:
// ASCII letters, digits and the punctuation of paths, flags and
// assignments, with no command-running program among its words. Such a
// line is what the engine reads; the parser is skipped.
func plain(line string) bool {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c >= 0x80 || !plainByte[c] {
			return false
		}
	}
	for _, w := range strings.Fields(line) {
		if runsOthers(path.Base(w)) {
			return false
		}
	}
	return true
}

var plainByte = func() (t [128]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_./:=,+@%" {
		t[c] = true
	}
	return t
}()

// runsOthers is a program that runs other commands or code given to it,
// or rm, whose flags have many spellings.
func runsOthers(name string) bool {
	return isShell(name) || wrappers[name] || interpreters[name] || slices.Contains([]string{"rm", "eval", "xargs", "find", "git", "alias", "awk", "gawk", "mawk", "nawk", "sed", "gsed", "source", ".", "cp", "ln", "install", "mv"}, name)
}

type inspector struct {
	found   []Finding
	seen    map[Finding]bool
	aliases map[string]string // aliases the line defines
	shells  map[string]bool   // names the line copied or linked a shell to
	ifs     bool              // the line assigns IFS
}

func (in *inspector) add(f Finding) {
	if len(in.found) >= maxFindings {
		f = Finding{Unseeable: "the line holds more commands than codewhale-ls judges one by one"}
	}
	if !in.seen[f] {
		in.seen[f] = true
		in.found = append(in.found, f)
	}
}

func (in *inspector) unseeable(why string) { in.add(Finding{Unseeable: why}) }

// line inspects a shell script: the whole command line (depth 0, via "")
// or code another command runs, via says which.
func (in *inspector) line(src string, depth int, via string) {
	if depth > maxDepth {
		in.unseeable("shells nested deeper than codewhale-ls follows")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if via != "" {
			in.unseeable(via + " runs code that bash may read otherwise than codewhale-ls can (" + err.Error() + ")")
		}
		return
	}
	var calls []call
	var stack []syntax.Node
	nested := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if isSubstitution(top) {
				nested--
			}
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			nested++
		case *syntax.Stmt:
			if ce, ok := n.Cmd.(*syntax.CallExpr); ok {
				calls = append(calls, call{expr: ce, redirs: n.Redirs, nested: nested > 0})
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				in.pipe(src, n, depth)
			}
		}
		return true
	})
	// A lone command is the line as written; anything else (a chain, a
	// subshell, a group, a loop) holds commands of its own.
	lone := len(calls) == 1 && len(f.Stmts) == 1 && f.Stmts[0].Cmd == calls[0].expr
	compound := !lone || via != ""
	for _, c := range calls {
		in.call(src, c, depth, via, compound)
	}
}

type call struct {
	expr   *syntax.CallExpr
	redirs []*syntax.Redirect
	nested bool // inside $( ), backquotes or <( )
}

func isSubstitution(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		return true
	}
	return false
}

// call inspects one simple command.
func (in *inspector) call(src string, c call, depth int, via string, compound bool) {
	for _, a := range c.expr.Assigns {
		if a.Name != nil && a.Name.Value == "IFS" {
			in.ifs = true
		}
	}
	if len(c.expr.Args) == 0 {
		return
	}
	// As written, before brace splitting rewrites the words in place.
	written := strings.TrimSpace(source(src, c.expr))
	var words []string
	var hows []string
	for i, w := range c.expr.Args {
		fields, dynamic, how := wordFields(src, w)
		if dynamic != "" {
			if i == 0 {
				why := "the command's name is built when the line runs (" + dynamic + ")"
				if in.ifs {
					why += ", and the line changes IFS, so its words split where nobody reading it expects"
				}
				in.unseeable(why)
				return
			}
			fields = []string{dynamic} // an argument only it builds
		}
		if how != "" && !slices.Contains(hows, how) {
			hows = append(hows, how)
		}
		words = append(words, fields...)
	}
	if len(words) == 0 {
		return
	}
	if name, alike := unconfuse(words[0]); alike {
		hows = append(hows, "`"+words[0]+"` is `"+name+"` written with look-alike letters")
		words[0] = name
	}
	text := join(words)
	why := strings.Join(hows, "; ")
	switch {
	case why != "":
		in.add(Finding{Command: text, Why: "`" + written + "` runs `" + text + "`: " + why})
	case c.nested:
		in.add(Finding{Command: text, Why: "`" + text + "` runs inside a command substitution"})
	case via != "":
		in.add(Finding{Command: text, Why: "`" + text + "` is run by " + via})
	case compound:
		in.add(Finding{Command: text, Why: "`" + text + "` is one command of the line"})
	}
	in.runs(src, c, words, depth)
}

// runs inspects what the command itself runs.
func (in *inspector) runs(src string, c call, words []string, depth int) {
	expr := c.expr
	name := path.Base(words[0])
	args := words[1:]
	switch {
	case name == "alias":
		for _, a := range args {
			if k, v, ok := strings.Cut(a, "="); ok {
				in.aliases[k] = v
			}
		}
		return
	case in.aliases[words[0]] != "":
		in.line(in.aliases[words[0]]+" "+join(args), depth+1, "the alias `"+words[0]+"`")
		return
	case name == "cp" || name == "ln" || name == "install" || name == "mv":
		if len(args) >= 2 && slices.ContainsFunc(args[:len(args)-1], func(a string) bool { return isShell(path.Base(a)) }) {
			dest := args[len(args)-1]
			in.shells[path.Base(dest)], in.shells[dest] = true, true
		}
		return
	case name == "rm":
		if canonical, ok := rmCanonical(args); ok {
			in.add(Finding{Command: canonical, Why: "`" + join(words) + "` is `" + canonical + "` with its flags in another spelling"})
		}
		return
	case isShell(name) || in.shells[words[0]] || in.shells[name]:
		in.shell(src, c, words, depth)
		return
	case name == "eval":
		in.line(strings.Join(args, " "), depth+1, "eval")
		return
	case name == "source" || name == ".":
		in.procSubstFed(src, expr, depth, name)
		return
	case name == "xargs":
		if rest := afterOptions(args, xargsValued, nil); len(rest) > 0 {
			in.line(join(rest), depth+1, "xargs")
		}
		return
	case name == "find":
		in.findExec(args, depth)
		return
	case name == "git":
		in.gitAlias(args, depth)
		return
	case wrappers[name]:
		if rest := wrapped(name, args); len(rest) > 0 {
			in.line(join(rest), depth+1, name)
		}
		return
	case interpreters[name]:
		in.interpreter(name, args, depth)
		return
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		in.awk(args, depth)
		return
	case name == "sed" || name == "gsed":
		in.sed(args, depth)
	}
}

// shell inspects a shell's -c script, or what feeds a shell that reads
// its commands from standard input (here-string, here-document, <( )).
func (in *inspector) shell(src string, c call, words []string, depth int) {
	via := "`" + path.Base(words[0]) + " -c`"
	for i, a := range words[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			if i+2 < len(words) {
				in.line(words[i+2], depth+1, via)
			}
			return
		}
	}
	for _, r := range c.redirs {
		switch r.Op {
		case syntax.WordHdoc:
			if text, dyn := literal(src, r.Word); dyn == "" {
				in.line(text, depth+1, "a here-string to "+path.Base(words[0]))
			} else {
				in.unseeable("a here-string built when the line runs is fed to a shell")
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				if text, dyn := literal(src, r.Hdoc); dyn == "" {
					in.line(text, depth+1, "a here-document to "+path.Base(words[0]))
				} else {
					in.unseeable("a here-document with expansions is fed to a shell")
				}
			}
		}
	}
	in.procSubstFed(src, c.expr, depth, path.Base(words[0]))
}

// procSubstFed inspects what a <( ) argument of a shell (or source) gives
// it to run: the text an echo or printf prints, else unseeable.
func (in *inspector) procSubstFed(src string, expr *syntax.CallExpr, depth int, runner string) {
	for _, w := range expr.Args[1:] {
		for _, p := range w.Parts {
			ps, ok := p.(*syntax.ProcSubst)
			if !ok {
				continue
			}
			if text, ok := printed(src, ps.Stmts); ok {
				in.line(text, depth+1, "a process substitution read by "+runner)
			} else {
				in.unseeable(runner + " runs what a process substitution prints")
			}
		}
	}
}

// pipe inspects a shell that reads its commands from a pipe.
func (in *inspector) pipe(src string, b *syntax.BinaryCmd, depth int) {
	ce, ok := b.Y.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	name, dyn := literal(src, ce.Args[0])
	if dyn == "" && path.Base(name) == "xargs" {
		// xargs appends the words it reads to its command: what an echo
		// or printf writes into it completes the command it runs.
		var args []string
		for _, w := range ce.Args[1:] {
			a, d := literal(src, w)
			if d != "" {
				return
			}
			args = append(args, a)
		}
		if text, ok := printed(src, []*syntax.Stmt{b.X}); ok {
			rest := afterOptions(args, xargsValued, nil)
			if len(rest) == 0 {
				rest = []string{"echo"}
			}
			in.line(join(rest)+" "+text, depth+1, "xargs fed by a pipe")
		}
		return
	}
	if dyn != "" || !(isShell(path.Base(name)) || in.shells[name]) {
		return
	}
	for _, w := range ce.Args[1:] {
		if a, _ := literal(src, w); !strings.HasPrefix(a, "-") || strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
			return // a script file or -c: the pipe is its input, not its code
		}
	}
	if text, ok := printed(src, []*syntax.Stmt{b.X}); ok {
		in.line(text, depth+1, "a pipe into "+path.Base(name))
		return
	}
	in.unseeable(path.Base(name) + " runs commands a program writes into the pipe")
}

// printed is the text stmts print when they are one echo or printf of
// literal words.
func printed(src string, stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) != 1 {
		return "", false
	}
	ce, ok := stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) < 1 {
		return "", false
	}
	var words []string
	for _, w := range ce.Args {
		s, dyn := literal(src, w)
		if dyn != "" {
			return "", false
		}
		words = append(words, s)
	}
	switch words[0] {
	case "echo":
		args := words[1:]
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
			args = args[1:]
		}
		return strings.Join(args, " "), true
	case "printf":
		if len(words) >= 2 {
			return strings.ReplaceAll(strings.Join(words[1:], " "), `\n`, "\n"), true
		}
	}
	return "", false
}

// findExec inspects the commands find -exec, -execdir, -ok and -okdir run.
func (in *inspector) findExec(args []string, depth int) {
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
func (in *inspector) gitAlias(args []string, depth int) {
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
	wrappers     = map[string]bool{"env": true, "nice": true, "nohup": true, "timeout": true, "sudo": true, "doas": true, "command": true, "exec": true, "time": true, "stdbuf": true, "setsid": true, "ionice": true, "chrt": true, "watch": true, "unbuffer": true}
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
func afterOptions(args []string, valued []string, _ []string) []string {
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
		rest := afterOptions(args, []string{"-s", "-k", "--signal", "--kill-after"}, nil)
		if len(rest) > 1 {
			return rest[1:] // after the duration
		}
		return nil
	case "nice":
		return afterOptions(args, []string{"-n", "--adjustment"}, nil)
	case "sudo", "doas":
		return afterOptions(args, []string{"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"}, nil)
	case "ionice":
		return afterOptions(args, []string{"-c", "-n", "-p"}, nil)
	case "chrt":
		rest := afterOptions(args, nil, nil)
		if len(rest) > 1 {
			return rest[1:]
		}
		return nil
	case "watch":
		return afterOptions(args, []string{"-n", "--interval", "-d"}, nil)
	case "stdbuf":
		return afterOptions(args, []string{"-i", "-o", "-e"}, nil)
	}
	return afterOptions(args, nil, nil)
}

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
func (in *inspector) interpreter(name string, args []string, depth int) {
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

// awk inspects an awk program's system() calls and pipes to commands.
func (in *inspector) awk(args []string, depth int) {
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

// sed inspects a sed script for its e command and s///e flag, which run
// text as a shell command.
func (in *inspector) sed(args []string, depth int) {
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

// rmCanonical is rm's command with its recursive and force flags written
// `-rf` first, when they are spelled otherwise (`-fr`, `-r -f`, `-Rf`,
// `--recursive --force`).
func rmCanonical(args []string) (string, bool) {
	var recursive, force, respelled bool
	var rest []string
	flags := 0
	for i, a := range args {
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
		case a == "--recursive":
			recursive, respelled = true, true
		case a == "--force":
			force, respelled = true, true
		case strings.HasPrefix(a, "--"):
			rest = append(rest, a)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags++
			other := ""
			for _, c := range a[1:] {
				switch c {
				case 'r', 'R':
					recursive = true
				case 'f':
					force = true
				default:
					other += string(c)
				}
			}
			if a != "-rf" {
				respelled = true
			}
			if other != "" {
				rest = append(rest, "-"+other)
			}
		default:
			rest = append(rest, a)
		}
		if a == "--" {
			break
		}
	}
	if !recursive || !force || (!respelled && flags == 1) {
		return "", false
	}
	return join(append([]string{"rm", "-rf"}, rest...)), true
}

// wordFields is a word's fields after brace expansion and quote removal,
// or dynamic: the source of the first part only the running shell knows
// ($x, $(…)). how names a spelling that hides the word's value.
func wordFields(src string, w *syntax.Word) (fields []string, dynamic, how string) {
	if syntax.SplitBraces(w) {
		how = "brace expansion"
	}
	n := 0
	for e, err := range expand.BracesSeq(nil, w) {
		if n++; err != nil || n > maxBraceFields {
			// So many words no reader can check them: the command is
			// built by the expansion.
			return nil, "a brace expansion of more than " + strconv.Itoa(maxBraceFields) + " words", how
		}
		s, dyn := literal(src, e)
		if dyn != "" {
			return nil, dyn, how
		}
		if hasANSIC(e) {
			how = strings.TrimPrefix(how+", ANSI-C quoting", ", ")
		}
		if s == "" && how != "" && !quoted(e) {
			continue // an empty alternative of a brace expansion makes no word
		}
		fields = append(fields, s)
	}
	return fields, "", how
}

func quoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

func hasANSIC(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if q, ok := p.(*syntax.SglQuoted); ok && q.Dollar {
			return true
		}
	}
	return false
}

// literal is a word's value after quote removal, or the source of its
// first dynamic part.
func literal(src string, w *syntax.Word) (string, string) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", source(src, q)
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", source(src, p)
		}
	}
	return b.String(), ""
}

func source(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return "an expansion"
	}
	return src[start:end]
}

// unescape removes the backslashes of an unquoted word.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes a double-quoted string drops.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// join writes words as a shell line: each quoted when it holds anything
// but plain characters.
func join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quote(w)
	}
	return strings.Join(out, " ")
}

func quote(w string) string {
	if w == "" {
		return "''"
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || !plainByte[c] || c == ' ' {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}
