package hardening

import (
	"regexp"
	"strings"
)

// Interpreters' code (docs/hardening.md, "Interpreters"). Each language
// has a lexer (interp_python.go, interp_perl.go, …) that reads the code's
// strings with that language's quoting and escapes, its comments and its
// patterns, into tokens. The scanner here walks the tokens for every
// place the code starts a process: a call of a function that runs a shell
// command or a program (os.system, subprocess.run, system, execSync,
// os.execute, …), a command string (backquotes, qx{}, %x{}), code that
// evaluates code. Each place is judged on its own: its argument is read
// as a constant (string literals and their concatenation, lists of them),
// and the command it makes is inspected as a line; an argument only known
// when the code runs is unseeable. One harmless call never excuses
// another.

// tokKind is what a token of code is.
type tokKind uint8

const (
	tkIdent   tokKind = iota // a name, keyword or variable ($x in Perl and PHP)
	tkString                 // a string literal; text is its value when known
	tkCommand                // a command string (backquotes, qx{}, %x{}): runs text as a shell command
	tkWords                  // a list of words (qw(), %w[])
	tkNumber                 // a number
	tkPunct                  // an operator or bracket
	tkNewline                // the end of a line outside brackets that may end a statement
	tkDynamic                // something the lexer knows runs code nobody can read; text says why
)

type token struct {
	kind  tokKind
	text  string
	known bool     // a string's or command's value is known (nothing interpolated)
	words []string // tkWords
}

// lexed is code read into tokens.
type lexed struct {
	toks []token
	// embedded is code inside strings (interpolations: "#{…}", `${…}`,
	// f"{…}", "@{[…]}"), read with the same names as the code around it.
	embedded []string
	// broken says why the lexer could not read the code to its end.
	broken string
	// guessed says the lexer read a `/` (or `%`, `?`) as an operator or as
	// the start of a literal where the language decides by what the code
	// means; quiet is the text the lexer read as strings, patterns and
	// comments. With a guess, quiet that names a process-starting
	// construct is unseeable.
	guessed bool
	quiet   strings.Builder
}

// lexer is the state common to the languages' lexers.
type lexer struct {
	src string
	i   int
	out lexed
}

func (l *lexer) emit(t token) { l.out.toks = append(l.out.toks, t) }

func (l *lexer) punct(s string) { l.emit(token{kind: tkPunct, text: s}) }

func (l *lexer) str(v string, known bool) {
	l.emit(token{kind: tkString, text: v, known: known})
	l.out.quiet.WriteString(v + "\n")
}

func (l *lexer) command(v string, known bool) { l.emit(token{kind: tkCommand, text: v, known: known}) }

func (l *lexer) dynamic(why string) { l.emit(token{kind: tkDynamic, text: why}) }

func (l *lexer) newline() {
	if n := len(l.out.toks); n > 0 && l.out.toks[n-1].kind != tkNewline {
		l.emit(token{kind: tkNewline, text: "\n"})
	}
}

func (l *lexer) comment(text string) { l.out.quiet.WriteString(text + "\n") }

func (l *lexer) fail(why string) {
	if l.out.broken == "" {
		l.out.broken = why
	}
	l.i = len(l.src)
}

// prev is the last token, or an empty one.
func (l *lexer) prev() token {
	if n := len(l.out.toks); n > 0 {
		return l.out.toks[n-1]
	}
	return token{kind: tkNewline}
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// ident reads a name at l.i.
func (l *lexer) ident() string {
	start := l.i
	for l.i < len(l.src) && isIdentByte(l.src[l.i]) {
		l.i++
	}
	return l.src[start:l.i]
}

// number reads a number at l.i (digits, letters, dots of a literal).
func (l *lexer) number() {
	start := l.i
	for l.i < len(l.src) && (isIdentByte(l.src[l.i]) || l.src[l.i] == '.' && l.i+1 < len(l.src) && '0' <= l.src[l.i+1] && l.src[l.i+1] <= '9') {
		l.i++
	}
	l.emit(token{kind: tkNumber, text: l.src[start:l.i]})
}

// operator reads the longest of ops at l.i, else one byte.
func (l *lexer) operator(ops []string) {
	for _, op := range ops {
		if strings.HasPrefix(l.src[l.i:], op) {
			l.punct(op)
			l.i += len(op)
			return
		}
	}
	l.punct(l.src[l.i : l.i+1])
	l.i++
}

// balanced is the text from l.i (just after an opening bracket open)
// to its closing bracket, with l.i after it; nested brackets of the same
// kind count, and a backslash escapes the byte after it.
func (l *lexer) balanced(open, close byte) (string, bool) {
	depth, start := 1, l.i
	for ; l.i < len(l.src); l.i++ {
		switch c := l.src[l.i]; {
		case c == '\\':
			l.i++
		case c == open && open != close:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				body := l.src[start:l.i]
				l.i++
				return body, true
			}
		}
	}
	return l.src[start:], false
}

// closing is the bracket that closes open, or open itself.
func closing(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return open
}

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
	// danger is what, read as a string or comment after a guessed `/`,
	// could be code that starts a process.
	danger *regexp.Regexp
}

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
}

func (in *inspector) scanCode(lang *language, via, code string, depth int) {
	s := &scanner{in: in, lang: lang, via: via, depth: depth, names: map[string]string{}, assigned: map[string]bool{}}
	s.scan(code)
}

// maxEvals bounds how deeply code evaluated by code is followed.
const maxEvals = 8

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
	if lx.broken != "" {
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
	if len(c.parts) > 1 && containsStr(s.lang.globals, c.parts[0]) {
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
		case !wantString && t.kind == tkPunct && containsStr(s.lang.concat, t.text):
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

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// list is an argument's value when it is a constant list of strings
// ([…], (…), array(…), qw(), %w[]), lists joined by the language's `+`.
func (s *scanner) list(toks []token) ([]string, bool) {
	if len(toks) == 1 && toks[0].kind == tkWords {
		return toks[0].words, true
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

// shell inspects a shell command line the code runs.
func (s *scanner) shell(text string, known bool, what string) {
	if !known {
		s.unseeable("runs " + what + " built when it runs")
		return
	}
	s.in.line(text, s.depth+1, s.via)
}

// argv inspects a program the code runs with these arguments.
func (s *scanner) argv(words []string, known bool, what string) {
	if !known {
		s.unseeable("starts a program with " + what + " whose words are built when it runs")
		return
	}
	if len(words) > 0 {
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
		if _, ok := s.str(first); ok || first[0].kind == tkNumber || first[0].kind == tkPunct && first[0].text == "{" || first[0].kind == tkIdent && isIdentStart(first[0].text[0]) && s.lang.name == "perl" {
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
