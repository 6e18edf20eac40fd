package hardening

import (
	"regexp"
	"strings"
)

// Interpreters (docs/hardening.md, "Interpreters"): the code python,
// perl, ruby, node, deno, bun, php and lua run from their command line
// (-c, -e, -r, eval), from standard input, or from a file the line
// writes, is read by a scanner for its language (interp_scan.go) for the
// processes it starts. This file reads each interpreter's command line.

// isInterpreter is a program that runs code given on its command line or
// standard input: python, python3.11, pypy3, perl5.36, node18, nodejs,
// ruby3.1, php8.2, lua5.4, luajit, deno, bun.
func isInterpreter(name string) bool {
	return interpreterFamily(name) != ""
}

// families are the interpreters' names before their versions, longest
// first where one begins another.
var families = []struct{ prefix, lang string }{
	{"python", "python"}, {"pypy", "python"},
	{"perl", "perl"},
	{"ruby", "ruby"},
	{"nodejs", "node"}, {"node", "node"},
	{"deno", "deno"}, {"bun", "bun"},
	{"php", "php"},
	{"luajit", "lua"}, {"lua", "lua"},
}

// version is what may follow a family's name: 3, 3.11, 3.12m, 5.36.0,
// -2.1, 3.13t.
var version = regexp.MustCompile(`^(?:-?[0-9][0-9.]*[a-z]{0,2})?$`)

// interpreterFamily is the language an interpreter of this name runs,
// "" for none.
func interpreterFamily(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, ".exe"))
	if name == "py" {
		return "python" // the Windows launcher
	}
	for _, f := range families {
		if strings.HasPrefix(name, f.prefix) && version.MatchString(name[len(f.prefix):]) {
			return f.lang
		}
	}
	return ""
}

// interpreter inspects the code an interpreter runs: given on its
// command line, on its standard input, or in a file the line writes (a
// file that exists before the line is judged by its name, as `bash x.sh`
// is: docs/hardening.md, "Code from a file").
func (in *inspector) interpreter(c *command) {
	name := c.name()
	family := interpreterFamily(name)
	read, ok := commandLines[family]
	if !ok {
		return
	}
	// The words built at run time are read with a hole for each part only
	// known then (argTexts): a hole where the language reads code is code
	// nobody can read; in a string, the string is built at run time.
	r := read(argTexts(c))
	lang := r.lang
	if lang == nil {
		lang = languageOf(family)
	}
	for _, p := range r.pre {
		in.scanCode(lang, "`"+name+" -M`", p, c.depth)
	}
	if inspect, ok := c.env["PYTHONINSPECT"]; r.interactive || ok && (inspect.text != "" || !inspect.known) && family == "python" {
		in.codeStdin(c, lang, name)
	}
	if r.code != nil {
		in.scanCode(lang, "`"+name+" "+r.flag+"`", strings.Join(r.code, "\n"), c.depth)
	}
	switch {
	case r.code != nil && r.file == "":
	case r.file != "":
		in.codeFile(c, lang, name, r.file)
	case r.stdin || len(r.rest) == 0 && !r.none && c.complete():
		in.codeStdin(c, lang, name)
	}
	if r.openValue || r.code == nil && r.file == "" && !r.none && !c.complete() {
		in.unseeable("`" + name + "` runs code, or a script, given by words built when the line runs")
	}
	if r.shellLine != "" {
		in.line(r.shellLine, c.depth+1, "`"+name+" exec`")
	}
	for _, m := range r.modules {
		// python -m pdb reads its commands from the terminal unless the
		// line gives it input.
		if why, ok := lang.dynamic[m]; ok && (family != "python" || c.stdin.given()) {
			in.unseeable("`" + name + "` " + why)
		}
		if strings.HasPrefix(m, "data:") || strings.Contains(m, "://") {
			in.unseeable("`" + name + "` loads code from `" + shorten(m) + "`")
		}
	}
	in.interpreterEnv(c, lang, name)
	if v, ok := c.env["PERL5DB"]; ok && r.debugger {
		if v.known {
			in.scanCode(lang, "`"+name+" -d` with PERL5DB", v.text, c.depth)
		} else {
			in.unseeable("`" + name + " -d` runs the debugger PERL5DB names, which the line sets when it runs")
		}
	}
	if r.magicOpen {
		in.perlMagicOpen(c, r.rest)
	}
}

// commandLines read each family's command line.
var commandLines = map[string]func(args []string) run{"python": pythonRun, "perl": perlRun, "ruby": rubyRun, "node": nodeRun, "deno": denoRun, "bun": bunRun, "php": phpRun, "lua": luaRun}

// languageOf is a family's scanner. (A function, not a table: the
// scanners reach interpreter() through the lines they inspect.)
func languageOf(family string) *language {
	switch family {
	case "python":
		return python
	case "perl":
		return perl
	case "ruby":
		return ruby
	case "node", "deno", "bun":
		return javascript
	case "php":
		return php
	case "lua":
		return lua
	}
	return nil
}

// run is what an interpreter's command line makes it run.
type run struct {
	lang *language
	// code is code given on the command line (-c, -e, several -e joined
	// by lines); flag names how (-c, -e, eval).
	code []string
	flag string
	// file is the script file, "-" or /dev/stdin for standard input.
	file string
	// stdin says the code is read from standard input.
	stdin bool
	// none says the command runs no code of its own (--version, -m
	// module, a subcommand).
	none bool
	// rest are the arguments after the code or script.
	rest []string
	// modules are modules loaded by name (-m, -r, -M, -l).
	modules []string
	// openValue says the code or script is named by a word built when
	// the line runs.
	openValue bool
	// shellLine is a shell command line the interpreter runs (bun exec).
	shellLine string
	// pre is code the interpreter runs before the rest (perl -M's
	// `use …;`).
	pre []string
	// interactive says it reads code from standard input after the rest
	// (python -i, node -i, lua -i, php -a).
	interactive bool
	// inPlace says perl -i edits files in place, opening them as files.
	inPlace bool
	// debugger says perl -d runs the debugger PERL5DB names.
	debugger bool
	// magicOpen says Perl's <> opens the remaining arguments with the
	// two-argument open, which runs a name ending in | as a command.
	magicOpen bool
}

// codeStdin inspects the code an interpreter reads on its standard
// input.
func (in *inspector) codeStdin(c *command, lang *language, name string) {
	in.codeFile(c, lang, name, "-")
}

// codeFile inspects a script an interpreter runs from a file, by the one
// rule for code from a file (codeFrom); a URL nobody here can read.
func (in *inspector) codeFile(c *command, lang *language, name, file string) {
	via := "`" + name + " " + shorten(strings.ReplaceAll(file, hole, "…")) + "`"
	if strings.HasPrefix(file, "data:") || strings.Contains(file, "://") {
		in.unseeable(via + " runs code from a URL, which nobody here can read")
		return
	}
	if text, ok := in.codeFrom(c, file, via); ok {
		in.scanCode(lang, via, text, c.depth)
	}
}

// pythonRun reads python's command line: -c CODE (also -Bc CODE,
// -cCODE), -m MODULE, a script, - or nothing for standard input.
func pythonRun(args []string) (r run) {
	interactive := false
	defer func() { r.interactive = r.interactive || interactive && !r.stdin }()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-" || a == "--" && i+1 < len(args) && args[i+1] == "-":
			return run{stdin: true, rest: args[i+1:]}
		case a == "--":
			if i+1 < len(args) {
				return run{file: args[i+1], rest: args[i+2:]}
			}
			return run{}
		case a == "--check-hash-based-pycs":
			i++
		case strings.HasPrefix(a, "--"):
			if a == "--help" || a == "--version" || a == "--help-all" || a == "--help-env" || a == "--help-xoptions" {
				return run{none: true}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'c':
					code, rest, ok := attached(a[j+1:], args[i+1:])
					if !ok {
						return run{openValue: true}
					}
					return run{code: []string{code}, flag: "-c", rest: rest}
				case 'm':
					mod, rest, ok := attached(a[j+1:], args[i+1:])
					if !ok {
						return run{openValue: true}
					}
					return pythonModule(mod, rest)
				case 'W', 'X', 'Q':
					if j+1 == len(a) {
						i++
					}
					j = len(a)
				case 'h', 'V', '?':
					return run{none: true}
				case 'i':
					interactive = true
				}
			}
		default:
			return run{file: a, rest: args[i+1:]}
		}
	}
	return run{}
}

// pythonModule is what `python -m MODULE ARGS` runs: a module that
// exists is judged by its name, as a script is; timeit runs its
// arguments as code.
func pythonModule(mod string, args []string) run {
	if mod != "timeit" {
		return run{none: true, modules: []string{mod}}
	}
	var code []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-s" || a == "--setup":
			if i+1 < len(args) {
				code = append(code, args[i+1])
			}
			i++
		case strings.HasPrefix(a, "--setup="):
			code = append(code, strings.TrimPrefix(a, "--setup="))
		case a == "-n" || a == "-r" || a == "-u" || a == "--number" || a == "--repeat" || a == "--unit":
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			code = append(code, a)
		}
	}
	return run{code: code, flag: "-m timeit"}
}

// attached is an option's value: the rest of its word, else the next
// argument; rest are the arguments after it.
func attached(rest string, next []string) (string, []string, bool) {
	if rest != "" {
		return rest, next, true
	}
	if len(next) == 0 {
		return "", nil, false
	}
	return next[0], next[1:], true
}

// interpreterEnv inspects the options interpreters read from the
// environment the line gives them: PERL5OPT's -M is code, PERL5DB is
// the debugger perl -d runs, NODE_OPTIONS may load modules.
func (in *inspector) interpreterEnv(c *command, lang *language, name string) {
	opts := map[string]string{"perl": "PERL5OPT", "node": "NODE_OPTIONS", "ruby": "RUBYOPT"}[lang.name]
	if lang == javascript {
		opts = "NODE_OPTIONS"
	}
	v, ok := c.env[opts]
	if opts == "" || !ok {
		return
	}
	if !v.known {
		in.unseeable("`" + name + "` reads options from " + opts + ", which the line sets when it runs")
		return
	}
	var r run
	switch lang {
	case perl:
		r = perlRun(strings.Fields(v.text))
	case javascript:
		r = nodeRun(strings.Fields(v.text))
	case ruby:
		r = rubyRun(strings.Fields(v.text))
	}
	for _, p := range r.pre {
		in.scanCode(lang, "`"+name+"` with "+opts, p, c.depth)
	}
	for _, m := range r.modules {
		if why, ok := lang.dynamic[m]; ok {
			in.unseeable("`" + name + "` " + why + " (" + opts + ")")
		}
		if strings.HasPrefix(m, "data:") || strings.Contains(m, "://") {
			in.unseeable("`" + name + "` loads code from `" + shorten(m) + "` (" + opts + ")")
		}
	}
}

// operand is the command line read up to its first operand, args[i]: the
// script file and its arguments or, after code given on the command line,
// that code's arguments.
func (r run) operand(args []string, i int) run {
	if r.code == nil {
		r.file, r.rest = args[i], args[i+1:]
		return r
	}
	r.rest = args[i:]
	return r
}

// ended is the command line read to its end: given no code, the
// interpreter reads its code on standard input.
func (r run) ended() run {
	if r.code == nil {
		r.stdin = true
	}
	return r
}
