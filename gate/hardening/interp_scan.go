package hardening

import (
	"regexp"
	"slices"
	"strings"
)

// Interpreters' code (docs/hardening.md, "Interpreters"). Each language
// has a lexer (interp_python.go, interp_perl.go, …, on the common parts
// in interp_lex.go) that reads the code's strings with that language's
// quoting and escapes, its comments and its patterns, into tokens. The
// scanner here walks the tokens for every
// place the code starts a process: a call of a function that runs a shell
// command or a program (os.system, subprocess.run, system, execSync,
// os.execute, …), a command string (backquotes, qx{}, %x{}), code that
// evaluates code. Each place is judged on its own: its argument is read
// as a constant (string literals and their concatenation, lists of them),
// and the command it makes is inspected as a line (interp_calls.go); an
// argument only known when the code runs is unseeable. One harmless call
// never excuses another.

// language is what the scanner knows of one language.
type language struct {
	name string
	lex  func(src string) *lexed
	// calls are the functions that start processes or evaluate code, by
	// their full name (os.system, child_process.execSync, system).
	calls map[string]callee
	// modules are the modules whose functions start processes: a module
	// handed around as a value is unseeable; in a strict one, so is any
	// attribute that is not among calls.
	modules map[string]bool
	strict  map[string]bool
	// methods are methods judged on any object (Ruby's send,
	// instance_eval).
	methods map[string]callee
	// loaders load a module by its name (__import__, require): with a
	// constant name they stand for the module, otherwise unseeable.
	loaders map[string]bool
	// dynamic are names whose use runs code nobody can read (ctypes,
	// sys.modules, Perl's syscall), with why.
	dynamic map[string]string
	// named are names whose mention in a string lets code reach a
	// process-starting function by name (vars()["__builtins__"],
	// ->can("system")).
	named map[string]bool
	// globals are the names of the global table (_G, _ENV).
	globals []string
	// single says a call without parentheses takes one string (Lua's
	// f"…").
	single bool
	// concat are the operators joining strings; adjacent says literals
	// next to each other are one.
	concat   []string
	adjacent bool
	// parenless says a call's arguments may follow its name without
	// parentheses (Perl, Ruby, Lua's f"…"), up to one of ends.
	parenless bool
	ends      map[string]bool
	// member are the operators between a name and its attribute.
	member map[string]bool
	// fold says names are read without case (PHP's functions).
	fold bool
	// names prepares the names the code binds to modules and functions
	// (imports, assignments) before the scan; nil for none.
	names func(s *scanner, toks []token)
	// suffixes are what a module's name is completed with to name its
	// file (".py", ".js").
	suffixes []string
	// danger is what, read as a string or comment after a guessed `/`,
	// could be code that starts a process.
	danger *regexp.Regexp
}

// scanner walks one interpreter's code for the processes it starts.
type scanner struct {
	in    *inspector
	lang  *language
	via   string // "`python3 -c`"
	depth int
	// names are what the code's own names stand for: a module
	// (o → os), a function (run → subprocess.run).
	names map[string]string
	// bound are token indexes of names the code binds (imports,
	// assignments), which are not uses of a module.
	bound map[int]bool
	// assigned are the names an assignment binds to a process-starting
	// module or function: reached as an attribute (A.s after class A:
	// s = os.system) they are unseeable.
	assigned map[string]bool
	evals    int
	// started counts the commands judged, up to maxStarted.
	started int
	// modulesRead are the written files already read as modules: a module
	// is run once, however often it is imported.
	modulesRead map[string]bool
}

func (in *inspector) scanCode(lang *language, via, code string, depth int) {
	s := &scanner{in: in, lang: lang, via: via, depth: depth, names: map[string]string{}, assigned: map[string]bool{}}
	s.scan(code)
}

// maxEvals bounds how deeply code evaluated by code is followed.
const maxEvals = 8

// maxStarted bounds the commands one interpreter's code is judged to
// start one by one; past it, the rest is unseeable.
const maxStarted = 1024

func (s *scanner) unseeable(why string) {
	s.in.unseeable(s.via + " " + why)
}

func (s *scanner) scan(code string) {
	if !s.in.spend(len(code)) {
		return
	}
	if s.evals > maxEvals {
		s.unseeable("evaluates code nested deeper than codewhale-ls follows")
		return
	}
	lx := s.lang.lex(code)
	toks := lx.toks
	s.bound = map[int]bool{}
	if s.lang.names != nil {
		s.lang.names(s, toks)
	}
	s.assignments(toks)
	for i := 0; i < len(toks); i++ {
		if !s.in.spend(1) {
			return
		}
		switch t := toks[i]; t.kind {
		case tkCommand:
			s.shell(t.text, t.known, "a command in backquotes")
		case tkDynamic:
			s.unseeable(t.text)
		case tkPunct:
			if t.text == hole {
				s.unseeable("runs code the line builds when it runs")
			}
		case tkString:
			if t.known && s.lang.named[t.text] {
				s.unseeable("names " + t.text + " in a string, to reach it by name")
			}
		case tkIdent:
			if i > 0 && toks[i-1].kind == tkPunct && s.lang.member[toks[i-1].text] && !prefixMember(toks, i-1) {
				if k, ok := s.lang.methods[t.text]; ok {
					if args, _, called := s.callArgs(toks, i+1); called {
						s.judge(t.text, k, args)
					}
				}
				if s.assigned[t.text] {
					s.unseeable("reaches " + s.names[t.text] + " as the attribute " + t.text)
				}
				continue // an attribute of something else
			}
			i = s.use(toks, i) - 1
		}
	}
	s.evals++
	for _, e := range lx.embedded {
		bound := s.bound
		s.scan(e)
		s.bound = bound
	}
	s.evals--
	// Code the interpreter cannot compile runs nothing (Perl's BEGIN
	// blocks before the error are among the tokens read); code this
	// lexer cannot read, but which could start a process, is unseeable.
	if lx.broken != "" && (s.lang.danger == nil || s.lang.danger.MatchString(lx.unread)) {
		s.unseeable("holds code codewhale-ls cannot read (" + lx.broken + ")")
	}
	if lx.guessed && s.lang.danger != nil && s.lang.danger.MatchString(lx.quiet.String()) {
		s.unseeable("holds a `/` whose reading depends on what the code means, and text that could start a process on one reading")
	}
}

// prefixMember says the member operator at toks[j] starts a name
// rather than following one (Ruby's ::Kernel).
func prefixMember(toks []token, j int) bool {
	if j == 0 {
		return true
	}
	switch p := toks[j-1]; p.kind {
	case tkIdent, tkString, tkNumber, tkCommand, tkWords:
		return false
	case tkPunct:
		return p.text != ")" && p.text != "]" && p.text != "}"
	}
	return true
}

// chain is a name and its attributes (os.path.join, require("x").y).
type chain struct {
	parts []string
	full  string // with the code's names resolved
	end   int    // token index after it
	// loader says the chain starts with a module loaded by a name only
	// known when the code runs.
	loader bool
	// url is a module loaded from a URL or data (data:…, https://…).
	url string
}

// readChain reads the name at toks[i] and its attributes. A loader
// called with a constant (__import__("os"), require("child_process"))
// stands for the module it loads.
func (s *scanner) readChain(toks []token, i int) chain {
	c := chain{parts: []string{s.fold(toks[i].text)}, end: i + 1}
	for c.end < len(toks) {
		full := s.resolve(c.parts)
		if s.lang.loaders[full] {
			if n, end, ok := s.loaded(toks, c.end); ok {
				if n == "" {
					c.loader = true
					c.end = end
					break
				}
				if strings.HasPrefix(n, "data:") || strings.Contains(n, "://") {
					c.url = n
				}
				s.written(n, s.lang.suffixes...)
				c.parts, c.end = []string{n}, end
				continue
			}
		}
		j := c.end
		for j < len(toks) && toks[j].kind == tkNewline {
			j++
		}
		if j+1 < len(toks) && toks[j].kind == tkPunct && s.lang.member[toks[j].text] && toks[j+1].kind == tkIdent {
			c.parts = append(c.parts, s.fold(toks[j+1].text))
			c.end = j + 2
			continue
		}
		if j == c.end && j+2 < len(toks) && toks[j].kind == tkPunct && toks[j].text == "[" && toks[j+1].kind == tkString && toks[j+1].known && toks[j+2].text == "]" {
			c.parts = append(c.parts, toks[j+1].text)
			c.end = j + 3
			continue
		}
		break
	}
	if len(c.parts) > 1 && slices.Contains(s.lang.globals, c.parts[0]) {
		c.parts = c.parts[1:]
	}
	c.full = s.resolve(c.parts)
	return c
}

// resolve is a name's parts as the full name they stand for.
func (s *scanner) resolve(parts []string) string {
	head := parts[0]
	if n, ok := s.names[head]; ok {
		head = n
	}
	if len(parts) == 1 {
		return head
	}
	return head + "." + strings.Join(parts[1:], ".")
}

// loaded is the module a loader's call at toks[j] loads: its name, ""
// when it is built when the code runs; ok is false when the loader is not
// called there.
func (s *scanner) loaded(toks []token, j int) (string, int, bool) {
	if j < len(toks) && toks[j].kind == tkPunct && toks[j].text == "(" {
		args, end := parenArgs(toks, j)
		if len(args) == 0 {
			return "", end, true
		}
		if m, ok := s.str(args[0].toks); ok {
			return strings.TrimPrefix(m, "node:"), end, true
		}
		return "", end, true
	}
	if s.lang.parenless && j < len(toks) && toks[j].kind == tkString {
		if !toks[j].known {
			return "", j + 1, true
		}
		return toks[j].text, j + 1, true
	}
	return "", j, false
}

func (s *scanner) fold(name string) string {
	if s.lang.fold {
		return strings.ToLower(name)
	}
	return name
}

// module is the process-starting module a full name is in, and the
// attribute after it ("" for the module itself).
func (s *scanner) module(full string) (mod, attr string, ok bool) {
	for m := full; ; {
		if s.lang.modules[m] {
			return m, strings.TrimPrefix(strings.TrimPrefix(full, m), "."), true
		}
		i := strings.LastIndexByte(m, '.')
		if i < 0 {
			return "", "", false
		}
		m = m[:i]
	}
}

// use judges a name at toks[i] and returns the index after what it read.
func (s *scanner) use(toks []token, i int) int {
	c := s.readChain(toks, i)
	if c.loader {
		s.unseeable("loads a module named when it runs")
		return c.end
	}
	if c.url != "" {
		s.unseeable("loads code from `" + shorten(c.url) + "`")
		return c.end
	}
	if why, ok := s.dynamic(c); ok {
		s.unseeable(why)
		return c.end
	}
	if s.bound[i] {
		return c.end
	}
	for _, p := range c.parts[1:] {
		if s.assigned[p] {
			s.unseeable("reaches " + s.names[p] + " as the attribute " + p)
			return c.end
		}
	}
	if why, ok := s.lang.dynamic["."+c.parts[len(c.parts)-1]+"("]; ok && len(c.parts) > 1 && c.end < len(toks) && toks[c.end].kind == tkPunct && toks[c.end].text == "(" {
		s.unseeable(why)
		return c.end
	}
	if why, ok := s.lang.dynamic[c.full+"["]; ok && c.end < len(toks) && toks[c.end].kind == tkPunct && toks[c.end].text == "[" {
		s.unseeable(why)
		return c.end
	}
	if c.end < len(toks) && toks[c.end].kind == tkPunct && toks[c.end].text == "=>" {
		return c.end // a name written as a hash key
	}
	if _, ok := s.lang.calls[c.full]; ok && i > 0 && toks[i-1].kind == tkPunct && toks[i-1].text == `\&` {
		s.unseeable("takes a reference to " + c.full + ", to start processes nobody can read")
		return c.end
	}
	if s.lang.loaders[c.full] {
		s.unseeable("hands " + c.full + " around as a value, to load modules nobody can read")
		return c.end
	}
	if k, ok := s.lang.methods[c.parts[len(c.parts)-1]]; ok && len(c.parts) > 1 {
		if args, _, called := s.callArgs(toks, c.end); called {
			s.judge(c.full, k, args)
		}
		return c.end
	}
	if k, ok := s.lang.calls[c.full]; ok {
		args, end, called := s.callArgs(toks, c.end)
		if !called {
			s.unseeable("hands " + c.full + " around as a value, to start processes nobody can read")
			return c.end
		}
		s.judge(c.full, k, args)
		_ = end
		return c.end // the arguments are code too: os.system(os.popen(…))
	}
	for n := c.full; strings.Contains(n, "."); {
		n = n[:strings.LastIndexByte(n, '.')]
		if _, ok := s.lang.calls[n]; ok || s.lang.loaders[n] && !strings.HasPrefix(c.full, n+".resolve") && !s.lang.loaders[c.full] {
			s.unseeable("uses " + n + " in a way codewhale-ls cannot follow (" + c.full + ")")
			return c.end
		}
	}
	if mod, attr, ok := s.module(c.full); ok {
		switch {
		case attr == "":
			s.unseeable("hands the module " + mod + " around as a value, to start processes nobody can read")
		case s.lang.strict[mod]:
			s.unseeable("uses " + c.full + ", which codewhale-ls cannot follow")
		}
	}
	return c.end
}

// dynamic says whether a name runs code nobody can read.
func (s *scanner) dynamic(c chain) (string, bool) {
	for n := c.full; n != ""; {
		if why, ok := s.lang.dynamic[n]; ok {
			return why, true
		}
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[:i]
	}
	for _, p := range c.parts[1:] {
		if why, ok := s.lang.dynamic["."+p]; ok {
			return why, true
		}
	}
	return "", false
}

// assignments binds names assigned a module or a process-starting
// function (`o = os`, `run = subprocess.run`, `local x = os.execute`).
func (s *scanner) assignments(toks []token) {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].kind != tkIdent || toks[i+1].kind != tkPunct || toks[i+1].text != "=" || toks[i+2].kind != tkIdent {
			continue
		}
		if i > 0 && toks[i-1].kind == tkPunct && s.lang.member[toks[i-1].text] {
			continue
		}
		c := s.readChain(toks, i+2)
		if c.loader {
			continue
		}
		if c.end < len(toks) && toks[c.end].kind != tkNewline && toks[c.end].text != ";" && toks[c.end].text != ")" && toks[c.end].text != "," {
			continue
		}
		_, isCall := s.lang.calls[c.full]
		if _, _, isMod := s.module(c.full); !isCall && !isMod {
			continue
		}
		if _, ok := s.dynamic(c); ok {
			continue
		}
		s.names[toks[i].text] = c.full
		s.assigned[toks[i].text] = true
		s.bound[i], s.bound[i+2] = true, true
	}
}

// arg is one argument of a call; key names a keyword argument
// (shell=True, chdir: "x").
type arg struct {
	key  string
	toks []token
}

// parenArgs are the arguments in the parentheses (or brackets) opening
// at toks[open], and the index after the closing one.
func parenArgs(toks []token, open int) ([]arg, int) {
	var args []arg
	depth, start := 0, open+1
	for j := open; j < len(toks); j++ {
		if toks[j].kind != tkPunct {
			continue
		}
		switch toks[j].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				if a := trimArg(toks[start:j]); len(a.toks) > 0 || a.key != "" {
					args = append(args, a)
				}
				return args, j + 1
			}
		case ",", "=>":
			if depth == 1 {
				args = append(args, trimArg(toks[start:j]))
				start = j + 1
			}
		}
	}
	return append(args, trimArg(toks[start:])), len(toks)
}

// trimArg drops newlines around an argument and reads a keyword's name.
func trimArg(toks []token) arg {
	var kept []token
	for _, t := range toks {
		if t.kind != tkNewline {
			kept = append(kept, t)
		}
	}
	if len(kept) >= 2 && kept[0].kind == tkIdent && kept[1].kind == tkPunct && (kept[1].text == "=" || kept[1].text == ":") {
		return arg{key: kept[0].text, toks: kept[2:]}
	}
	return arg{toks: kept}
}

// callArgs are a call's arguments after its name, in parentheses or,
// where the language allows, without; called is false when the name is
// not called here.
func (s *scanner) callArgs(toks []token, j int) ([]arg, int, bool) {
	if j < len(toks) && toks[j].kind == tkPunct && toks[j].text == "(" {
		args, end := parenArgs(toks, j)
		return args, end, true
	}
	if !s.lang.parenless {
		return nil, j, false
	}
	if s.lang.single {
		if j < len(toks) && toks[j].kind == tkString {
			return []arg{{toks: toks[j : j+1]}}, j + 1, true
		}
		return nil, j, false
	}
	if j >= len(toks) || toks[j].kind == tkNewline || toks[j].kind == tkPunct && s.lang.ends[toks[j].text] || toks[j].kind == tkIdent && s.lang.ends[toks[j].text] {
		return nil, j, true // called with no arguments
	}
	var args []arg
	depth, start, end := 0, j, len(toks)
scan:
	for k := j; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.kind == tkNewline && depth == 0 && s.lang.ends["\n"]:
			end = k
			break scan
		case (t.kind == tkPunct || t.kind == tkIdent) && depth == 0 && s.lang.ends[t.text]:
			end = k
			break scan
		case t.kind != tkPunct:
		case t.text == "(" || t.text == "[" || t.text == "{":
			depth++
		case t.text == ")" || t.text == "]" || t.text == "}":
			if depth == 0 {
				end = k
				break scan
			}
			depth--
		case (t.text == "," || t.text == "=>") && depth == 0:
			args = append(args, trimArg(toks[start:k]))
			start = k + 1
		}
	}
	if a := trimArg(toks[start:end]); len(a.toks) > 0 {
		args = append(args, a)
	}
	return args, end, true
}

// str is an argument's value when it is a constant string: literals,
// joined by the language's concatenation, in parentheses.
func (s *scanner) str(toks []token) (string, bool) {
	for len(toks) >= 2 && toks[0].text == "(" && toks[0].kind == tkPunct && toks[len(toks)-1].text == ")" && closesFirst(toks) {
		toks = toks[1 : len(toks)-1]
	}
	if len(toks) == 0 {
		return "", false
	}
	var b strings.Builder
	wantString := true
	for _, t := range toks {
		switch {
		case wantString && t.kind == tkString && t.known:
			b.WriteString(t.text)
			wantString = false
		case !wantString && t.kind == tkString && t.known && s.lang.adjacent:
			b.WriteString(t.text)
		case !wantString && t.kind == tkPunct && slices.Contains(s.lang.concat, t.text):
			wantString = true
		default:
			return "", false
		}
	}
	return b.String(), !wantString
}

// closesFirst says the bracket opening toks closes at its end.
func closesFirst(toks []token) bool {
	depth := 0
	for i, t := range toks {
		if t.kind != tkPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return i == len(toks)-1
			}
		}
	}
	return false
}

// list is an argument's value when it is a constant list of strings
// ([…], (…), array(…), qw(), %w[]), lists joined by the language's `+`.
func (s *scanner) list(toks []token) ([]string, bool) {
	if len(toks) == 1 && toks[0].kind == tkWords {
		return toks[0].words, !slices.ContainsFunc(toks[0].words, func(w string) bool { return strings.Contains(w, hole) })
	}
	if len(toks) >= 2 && toks[0].kind == tkIdent && s.fold(toks[0].text) == "array" && toks[1].text == "(" {
		toks = toks[1:]
	}
	if len(toks) < 2 || toks[0].kind != tkPunct || toks[0].text != "[" && toks[0].text != "(" {
		return nil, false
	}
	args, end := parenArgs(toks, 0)
	var words []string
	for _, a := range args {
		if a.key != "" {
			return nil, false
		}
		if len(a.toks) == 1 && a.toks[0].kind == tkWords {
			words = append(words, a.toks[0].words...)
			continue
		}
		w, ok := s.str(a.toks)
		if !ok {
			return nil, false
		}
		words = append(words, w)
	}
	if end < len(toks) {
		if toks[end].text != "+" {
			return nil, false
		}
		more, ok := s.list(toks[end+1:])
		if !ok {
			return nil, false
		}
		words = append(words, more...)
	}
	return words, true
}

// words is an argument as argv: a list, or one string naming the
// program alone.
func (s *scanner) words(toks []token) ([]string, bool) {
	if w, ok := s.list(toks); ok {
		return w, true
	}
	if w, ok := s.str(toks); ok {
		return []string{w}, true
	}
	return nil, false
}

// written scans code the line itself wrote to a file a module or script
// name stands for (require("./x"), import x, do "x.pl", include
// "x.php"): a file that exists before the line is judged by its name, as
// a script is (docs/hardening.md, "Code from a file").
func (s *scanner) written(name string, suffixes ...string) {
	if len(s.in.files) == 0 || name == "" || strings.Contains(name, hole) {
		return
	}
	for _, suffix := range append([]string{""}, suffixes...) {
		file := name + suffix
		v, ok := s.in.files[file]
		if !ok {
			v, ok = s.in.files[strings.TrimPrefix(file, "./")]
		}
		if !ok {
			continue
		}
		if !v.known {
			s.unseeable("loads `" + shorten(file) + "`, a file the line fills with what a program writes")
			return
		}
		if s.modulesRead[file] {
			return
		}
		if s.modulesRead == nil {
			s.modulesRead = map[string]bool{}
		}
		s.modulesRead[file] = true
		lang := s.lang
		if lang == php {
			lang = phpFile
		}
		s.evals++
		saved, bound := s.lang, s.bound
		s.lang = lang
		s.scan(v.text)
		s.lang, s.bound = saved, bound
		s.evals--
		return
	}
}
