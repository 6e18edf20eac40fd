package hardening

import (
	"strings"
)

// how says how a call's arguments become a command.
type how uint8

const (
	shellString    how = iota // argument at is a shell command line
	argsOrLine                // one string argument is a shell command line, several are argv (Perl's and Ruby's system)
	argvValue                 // argument at is argv, or one string naming the program alone
	programArgs               // argument at is the program, at+1 a list of its arguments (execFile, pcntl_exec)
	programArg0               // argument at is the program, the rest argv from argv[0] (os.execl)
	programVec                // argument at is the program, at+1 argv from argv[0] (os.execv)
	allArgs                   // every argument from at is one word of argv (create_subprocess_exec)
	subprocessCall            // Python's subprocess: args, shell=
	nodeSpawn                 // Node's spawn: command, args, {shell}
	optionsCmd                // Deno.run({cmd}), Bun.spawn([…] or {cmd})
	denoCommand               // new Deno.Command(program, {args})
	pipeOpen                  // Perl's open and Ruby's open: a mode or path with | runs a command
	evalCode                  // code in the same language, at
	lineOrList                // argument at is a shell command line, or argv as a list (IO.popen)
	eachLine                  // every argument is a command: a shell line or argv (Open3.pipeline)
	nodeFork                  // Node's fork: a module node runs, with its arguments
	evalTimeit                // timeit's statement and setup: code in the same language
	loadsFile                 // Perl's do and require: a file or module named by a constant, or unseeable
	attribute                 // getattr(obj, name), send(:name): a process-starting function by a name
	alwaysDynamic             // always unseeable
)

type callee struct {
	how how
	at  int
}

// shell inspects a shell command line the code runs.
func (s *scanner) shell(text string, known bool, what string) {
	if !known {
		s.unseeable("runs " + what + " built when it runs")
		return
	}
	if s.more() {
		s.in.line(text, s.depth+1, s.via)
	}
}

// more says whether another command may be judged one by one.
func (s *scanner) more() bool {
	if s.started++; s.started > maxStarted {
		if s.started == maxStarted+1 {
			s.unseeable("starts more commands than codewhale-ls judges one by one")
		}
		return false
	}
	return true
}

// argv inspects a program the code runs with these arguments.
func (s *scanner) argv(words []string, known bool, what string) {
	if !known {
		s.unseeable("starts a program with " + what + " whose words are built when it runs")
		return
	}
	if len(words) > 0 && s.more() {
		s.in.line(join(words), s.depth+1, s.via)
	}
}

// judge inspects one call of a process-starting function.
func (s *scanner) judge(name string, k callee, args []arg) {
	what := name + "()"
	positional := args[:0:0]
	kw := map[string][]token{}
	for _, a := range args {
		switch {
		case a.key != "":
			kw[a.key] = a.toks
		case len(a.toks) == 0:
			// f(a,,b) and unfinished calls: nothing to read.
		default:
			positional = append(positional, a)
		}
	}
	at := func(n int) []token {
		if n < len(positional) {
			return positional[n].toks
		}
		return nil
	}
	switch k.how {
	case shellString:
		if len(positional) <= k.at {
			if len(args) > 0 {
				s.unseeable("runs a command given to " + what + " in a way codewhale-ls cannot read")
			}
			return
		}
		text, ok := s.str(at(k.at))
		s.shell(text, ok, "a command given to "+what)
	case argsOrLine:
		s.argsOrLine(what, positional[min(k.at, len(positional)):])
	case argvValue:
		if len(positional) <= k.at {
			s.unseeable("runs what " + what + " is given in a way codewhale-ls cannot read")
			return
		}
		w, ok := s.words(at(k.at))
		s.argv(w, ok, what)
	case programArgs:
		prog, ok := s.str(at(k.at))
		words := []string{prog}
		if len(positional) > k.at+1 {
			more, ok2 := s.list(at(k.at + 1))
			ok = ok && ok2
			words = append(words, more...)
		}
		s.argv(words, ok && len(positional) > k.at, what)
	case programArg0:
		prog, ok := s.str(at(k.at))
		words := []string{prog}
		for n := k.at + 2; n < len(positional); n++ {
			w, ok2 := s.str(at(n))
			if !ok2 && n == len(positional)-1 && strings.HasSuffix(name, "e") {
				break // the environment of execle, spawnle
			}
			ok = ok && ok2
			words = append(words, w)
		}
		s.argv(words, ok, what)
	case programVec:
		prog, ok := s.str(at(k.at))
		vec, ok2 := s.list(at(k.at + 1))
		if len(vec) > 0 {
			vec = vec[1:]
		}
		s.argv(append([]string{prog}, vec...), ok && ok2, what)
	case allArgs:
		var words []string
		ok := len(positional) > k.at
		for n := k.at; n < len(positional); n++ {
			w, ok2 := s.str(at(n))
			ok = ok && ok2
			words = append(words, w)
		}
		s.argv(words, ok, what)
	case subprocessCall:
		s.subprocess(what, at(0), kw)
	case nodeSpawn:
		s.nodeSpawn(what, positional)
	case optionsCmd:
		s.optionsCmd(what, at(0))
	case denoCommand:
		prog, ok := s.str(at(0))
		words := []string{prog}
		if len(positional) > 1 {
			opts := objectFields(at(1))
			if a, has := opts["args"]; has {
				more, ok2 := s.list(a)
				ok = ok && ok2
				words = append(words, more...)
			} else if opts == nil {
				ok = false
			}
		}
		s.argv(words, ok, what)
	case pipeOpen:
		s.pipeOpen(what, positional)
	case lineOrList:
		if len(positional) <= k.at {
			s.unseeable("runs what " + what + " is given in a way codewhale-ls cannot read")
			return
		}
		first := at(k.at)
		if len(first) > 0 && first[0].text == "{" && len(positional) > k.at+1 {
			first = at(k.at + 1) // an environment hash first
		}
		if text, ok := s.str(first); ok {
			s.shell(text, true, "")
		} else {
			w, ok := s.list(first)
			s.argv(w, ok, what)
		}
	case eachLine:
		for _, a := range positional {
			if text, ok := s.str(a.toks); ok {
				s.shell(text, true, "")
			} else {
				w, ok := s.list(a.toks)
				s.argv(w, ok, what)
			}
		}
	case nodeFork:
		mod, ok := s.str(at(0))
		words := []string{"node", mod}
		if len(positional) > 1 {
			if more, isList := s.list(at(1)); isList {
				words = append(words, more...)
			} else if at(1)[0].text != "{" {
				ok = false
			}
		}
		s.argv(words, ok, what)
	case loadsFile:
		if len(positional) == 0 {
			return
		}
		first := at(0)
		if name, ok := s.str(first); ok && (strings.HasPrefix(name, "data:") || strings.Contains(name, "://")) {
			s.unseeable("loads code from `" + shorten(name) + "` (" + what + ")")
			return
		}
		if name, ok := s.str(first); ok {
			s.written(name, s.lang.suffixes...)
			return
		}
		if first[0].kind == tkNumber || first[0].kind == tkPunct && first[0].text == "{" || first[0].kind == tkIdent && isIdentStart(first[0].text[0]) && s.lang.name == "perl" {
			return
		}
		s.unseeable("loads code from a file named when it runs (" + what + ")")
	case evalTimeit:
		for _, code := range [][]token{at(0), at(1), kw["stmt"], kw["setup"]} {
			if code == nil {
				continue
			}
			text, ok := s.str(code)
			if !ok {
				s.unseeable("evaluates code built when it runs (" + what + ")")
				continue
			}
			s.evals++
			bound := s.bound
			s.scan(text)
			s.bound = bound
			s.evals--
		}
	case evalCode:
		if k.at < 0 {
			k.at = len(positional) - 1
		}
		if len(positional) > k.at && positional[k.at].toks[0].kind == tkPunct && positional[k.at].toks[0].text == "{" && s.lang.name != "python" {
			return // a block, which is code read with the rest
		}
		if len(positional) <= k.at {
			s.unseeable("evaluates code codewhale-ls cannot read (" + what + ")")
			return
		}
		code, ok := s.str(at(k.at))
		if !ok {
			s.unseeable("evaluates code built when it runs (" + what + ")")
			return
		}
		s.evals++
		bound := s.bound
		s.scan(code)
		s.bound = bound
		s.evals--
	case attribute:
		s.attribute(what, positional, k.at)
	case alwaysDynamic:
		s.unseeable("runs code through " + what + ", which codewhale-ls cannot follow")
	}
}

// argsOrLine judges Perl's and Ruby's system and exec: one string is a
// shell command line, several arguments are argv; a leading environment
// hash ({…}) is skipped.
func (s *scanner) argsOrLine(what string, args []arg) {
	args = s.splat(args)
	if len(args) == 0 {
		return
	}
	if len(args) > 0 && len(args[0].toks) > 0 && args[0].toks[0].text == "{" && args[0].toks[0].kind == tkPunct {
		if s.lang.name == "perl" {
			s.unseeable("starts the program an indirect object names (" + what + " {…})")
			return
		}
		args = args[1:]
	}
	for len(args) > 0 && args[len(args)-1].key != "" {
		args = args[:len(args)-1] // options (chdir: "x", exception: true)
	}
	if len(args) == 0 {
		return
	}
	if len(args) == 1 {
		if text, ok := s.str(args[0].toks); ok {
			s.shell(text, true, "")
			return
		}
		if w, ok := s.list(args[0].toks); ok {
			s.argv(w, true, what)
			return
		}
		s.unseeable("runs a command given to " + what + " built when it runs")
		return
	}
	var words []string
	for i, a := range args {
		if w, ok := s.str(a.toks); ok {
			words = append(words, w)
			continue
		}
		// Ruby's system(["git", "argv0"], "push"): the program and its
		// argv[0].
		if w, ok := s.list(a.toks); ok && i == 0 && len(w) == 2 {
			words = append(words, w[0])
			continue
		}
		if len(a.toks) == 1 && a.toks[0].kind == tkWords {
			words = append(words, a.toks[0].words...)
			continue
		}
		s.argv(nil, false, what)
		return
	}
	s.argv(words, true, what)
}

// subprocess judges Python's subprocess functions: a list is argv, a
// string with shell=True a shell line, without it the program's name.
func (s *scanner) subprocess(what string, first []token, kw map[string][]token) {
	if first == nil {
		first = kw["args"]
	}
	if first == nil {
		s.unseeable("runs a command given to " + what + " in a way codewhale-ls cannot read")
		return
	}
	if _, ok := kw["executable"]; ok {
		s.unseeable("starts a program named by executable= in " + what)
		return
	}
	shell := "False"
	if v, ok := kw["shell"]; ok {
		shell = "?"
		if len(v) == 1 && v[0].kind == tkIdent && (v[0].text == "True" || v[0].text == "False") {
			shell = v[0].text
		} else if len(v) == 1 && v[0].kind == tkNumber {
			shell = map[bool]string{true: "False", false: "True"}[v[0].text == "0"]
		}
	}
	if text, ok := s.str(first); ok {
		if shell != "False" {
			s.shell(text, true, "")
		}
		if shell != "True" {
			s.argv([]string{text}, true, what)
		}
		return
	}
	words, ok := s.list(first)
	switch {
	case !ok:
		s.argv(nil, false, what)
	case shell == "False":
		s.argv(words, true, what)
	case len(words) > 0:
		// With shell=True the first word is the shell's script.
		s.shell(words[0], true, "")
		if shell == "?" {
			s.argv(words, true, what)
		}
	}
}

// nodeSpawn judges Node's spawn and spawnSync: command, args, {shell}.
func (s *scanner) nodeSpawn(what string, args []arg) {
	if len(args) == 0 {
		return
	}
	prog, ok := s.str(args[0].toks)
	words := []string{prog}
	opts := args[1:]
	if len(args) > 1 {
		if more, isList := s.list(args[1].toks); isList {
			words = append(words, more...)
			opts = args[2:]
		} else if args[1].toks[0].text != "{" {
			ok = false
		}
	}
	shell := "false"
	if len(opts) > 0 {
		fields := objectFields(opts[0].toks)
		if fields == nil {
			shell = "?"
		} else if v, has := fields["shell"]; has {
			shell = "?"
			if len(v) == 1 && (v[0].text == "false" || v[0].text == "true") {
				shell = v[0].text
			}
		}
	}
	if !ok {
		s.argv(nil, false, what)
		return
	}
	if shell != "false" {
		// The shell runs the command and arguments joined by spaces.
		s.shell(strings.Join(words, " "), true, "")
	}
	if shell != "true" {
		s.argv(words, true, what)
	}
}

// optionsCmd judges Deno.run({cmd: […]}) and Bun.spawn([…] or {cmd}).
func (s *scanner) optionsCmd(what string, first []token) {
	if w, ok := s.list(first); ok {
		s.argv(w, true, what)
		return
	}
	fields := objectFields(first)
	cmd, ok := fields["cmd"]
	if !ok {
		s.argv(nil, false, what)
		return
	}
	w, ok := s.list(cmd)
	s.argv(w, ok, what)
}

// objectFields are the fields of an object literal {a: …, "b": …}, by
// name; nil when toks is not one.
func objectFields(toks []token) map[string][]token {
	if len(toks) < 2 || toks[0].kind != tkPunct || toks[0].text != "{" || !closesFirst(toks) {
		return nil
	}
	args, _ := parenArgs(toks, 0)
	fields := map[string][]token{}
	for _, a := range args {
		switch {
		case a.key != "":
			fields[a.key] = a.toks
		case len(a.toks) >= 2 && a.toks[0].kind == tkString && a.toks[1].text == ":":
			fields[a.toks[0].text] = a.toks[2:]
		case len(a.toks) == 1 && a.toks[0].kind == tkIdent:
			fields[a.toks[0].text] = nil // shorthand {shell}: its value is a variable
			return nil
		default:
			return nil
		}
	}
	return fields
}

// pipeOpen judges Perl's open (a mode or file with | runs a command) and
// Ruby's open("|cmd").
func (s *scanner) pipeOpen(what string, args []arg) {
	if s.lang.name == "perl" {
		if len(args) < 2 {
			if len(args) == 1 {
				s.unseeable("opens a file whose name it builds, which may run a command (" + what + ")")
			}
			return
		}
		args = args[1:] // the handle
	}
	if len(args) == 0 {
		return
	}
	mode, ok := s.str(args[0].toks)
	if !ok {
		s.unseeable("opens a file whose name or mode it builds, which may run a command (" + what + ")")
		return
	}
	if len(args) > 1 && s.lang.name == "perl" {
		m := strings.TrimSpace(mode)
		if m != "-|" && m != "|-" {
			if !strings.Contains(m, "|") {
				return
			}
		}
		s.argsOrLine(what, args[1:])
		return
	}
	m := strings.TrimSpace(mode)
	switch {
	case strings.HasPrefix(m, "|"):
		if rest := strings.TrimSpace(m[1:]); rest != "-" {
			s.shell(rest, true, "")
		}
	case strings.HasSuffix(m, "|") && s.lang.name == "perl":
		if rest := strings.TrimSpace(m[:len(m)-1]); rest != "-" {
			s.shell(rest, true, "")
		}
	}
}

// attribute judges getattr(obj, name) and its kin: on a process-starting
// module, or by a name built when the code runs, it may be any function.
func (s *scanner) attribute(what string, args []arg, at int) {
	if len(args) <= at {
		s.unseeable("looks up a function in a way codewhale-ls cannot read (" + what + ")")
		return
	}
	if obj := args[0].toks; at > 0 && len(obj) > 0 && obj[0].kind == tkIdent {
		c := s.readChain(obj, 0)
		_, isCall := s.lang.calls[c.full]
		if _, _, isMod := s.module(c.full); isMod || isCall || c.loader {
			s.unseeable("looks up an attribute of " + c.full + " by name with " + what)
			return
		}
	}
	name := args[at].toks
	n, ok := s.str(name)
	if len(name) == 1 && name[0].kind == tkIdent && strings.HasPrefix(name[0].text, ":") {
		n, ok = name[0].text[1:], true // a Ruby symbol
	}
	if !ok {
		s.unseeable("looks up a function by a name built when it runs (" + what + ")")
		return
	}
	for full, k := range s.lang.calls {
		if k.how != attribute && (full == n || strings.HasSuffix(full, "."+n)) {
			s.unseeable("looks up the function " + n + " by name with " + what)
			return
		}
	}
}

// splat spreads the arguments written *LIST (Ruby, Python) when the list
// is constant: system(*%w[git push]).
func (s *scanner) splat(args []arg) []arg {
	var out []arg
	for _, a := range args {
		if len(a.toks) > 1 && a.toks[0].kind == tkPunct && a.toks[0].text == "*" {
			if w, ok := s.list(a.toks[1:]); ok {
				for _, x := range w {
					out = append(out, arg{toks: []token{{kind: tkString, text: x, known: true}}})
				}
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
