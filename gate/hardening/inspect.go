package hardening

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Finding is one command a line will run that the engine should judge on
// its own, or one place where the line runs code nobody can read.
type Finding struct {
	// Command is the command as it will run, for the engine to judge; ""
	// for an unseeable finding. With Open, the command's words known
	// before the line runs.
	Command string
	// Open, when not empty, are the command's words from the first one
	// only known when the line runs (`git $(…)`, `rm -rf "$d/x"`): what
	// each may be. A person decides when a deny or ask rule could match
	// one of the commands they make (Instantiate).
	Open []Pattern
	// Why says how the command hides in the line as written, for the
	// trace: "`rm -fr /` is `rm -rf /` with its flags in another order".
	Why string
	// Unseeable, when not empty, is why the line runs code that cannot be
	// read (a command word built at run time, a shell fed by a pipe from a
	// program, dynamic code): a person must decide.
	Unseeable string
}

// maxDepth bounds how deep shells in shells, evals, programs' code and
// arithmetic on variables are followed; deeper is unseeable.
const maxDepth = 32

// maxNesting bounds how deeply parentheses, braces and backquotes may
// nest in text the layer parses: deeper text is unseeable before it is
// parsed, so a hostile nest costs a scan of its bytes.
const maxNesting = 128

// maxBraceFields bounds the words one brace expansion may make before
// what it makes counts as built at run time.
const maxBraceFields = 1024

// maxFindings bounds the findings of one line (a line of 10,000 commands
// is judged by its first findings and then held for a person).
const maxFindings = 4096

// maxQuoted bounds how much of a command's text a finding's Why quotes,
// so findings about a deep nest do not each copy the rest of it.
const maxQuoted = 160

// Inspect is every command line runs that its written form hides, and
// every place where it runs code nobody can read. A line bash reads
// otherwise than the parser here (one the parser rejects) is unseeable
// after the commands before the place it rejects: bash runs those.
func Inspect(line string) (found []Finding) {
	if plain(line) {
		return nil
	}
	in := newInspector(len(line))
	defer func() {
		if r := recover(); r != nil {
			// A line that trips the parser is one nobody here can read.
			found = append(in.found, Finding{Unseeable: fmt.Sprintf("codewhale-ls could not read the line (%v)", r)})
		}
	}()
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
	return isShell(name) || isWrapper(name) || isInterpreter(name) || slices.Contains([]string{"rm", "eval", "xargs", "find", "git", "alias", "awk", "gawk", "mawk", "nawk", "busybox", "sed", "gsed", "source", ".", "cp", "ln", "install", "mv", "trap", "hash", "let", "declare", "typeset", "local", "export", "readonly", "read", "printf", "test", "unset", "mapfile", "readarray", "complete", "enable", "set", "exec", "cargo", "capsh", "start-stop-daemon", "gdb", "cgdb", "lldb"}, name) || strings.HasPrefix(name, "git-")
}

type inspector struct {
	found   []Finding
	seen    map[string]bool
	aliases map[string]string // aliases the line defines (alias, hash -p)
	shells  map[string]bool   // names the line copied or linked a shell to
	ifs     bool              // the line assigns IFS
	// vars are the variables the line sets, with their values when only
	// one literal value is ever given.
	vars map[string]value
	// integers are the variables the line declares integer (declare -i):
	// bash evaluates what is assigned to them as arithmetic.
	integers map[string]bool
	// files are the files the line writes, with what it writes to them.
	files map[string]value
	// fds are the file descriptors the line opens for reading with exec.
	fds map[string]value
	// feeds are what pipes give the commands on their right.
	feeds map[*syntax.Stmt]feed
	// patterns are what synthetic variables stand for: the words a
	// program gives xargs ($XARGS_INPUT), of a form known from the program.
	patterns map[string]Pattern
	// procSubsts are what the line's process substitutions <(…) print,
	// by their source text, the word the command is given.
	procSubsts map[string]value
	gitConfig  map[string]map[string]value // set with git config, by file (git.go)
	// steps is the work left for this line (nodes walked, words made,
	// expressions evaluated), and bytes what is left to parse; spent,
	// the rest of the line is unseeable (maxSteps, parseBytes).
	steps, bytes int
	// spent says the line's budget ran out.
	spent bool
	// parsers are parsers made for the line and free to use again.
	parsers []*syntax.Parser
}

// value is what a variable, file or file descriptor holds.
type value struct {
	text  string
	known bool
}

func newInspector(size int) *inspector {
	return &inspector{
		seen: map[string]bool{}, aliases: map[string]string{}, shells: map[string]bool{},
		vars: map[string]value{}, integers: map[string]bool{}, files: map[string]value{}, fds: map[string]value{},
		feeds: map[*syntax.Stmt]feed{}, procSubsts: map[string]value{}, patterns: map[string]Pattern{},
		steps: maxSteps, bytes: parseBytes(size),
	}
}

func (in *inspector) add(f Finding) {
	if in.spent {
		return
	}
	if len(in.found) >= maxFindings {
		// Judged by its first findings, the rest held for a person.
		in.spent = true
		in.found = append(in.found, Finding{Unseeable: "the line holds more commands than codewhale-ls judges one by one"})
		return
	}
	key := f.Command + "\x00" + f.Why + "\x00" + f.Unseeable + "\x00" + fmt.Sprint(f.Open)
	if !in.seen[key] {
		in.seen[key] = true
		in.found = append(in.found, f)
	}
}

func (in *inspector) unseeable(why string) { in.add(Finding{Unseeable: why}) }

// maxSteps bounds the steps one line may take, whatever its length: the
// ordinary lines of the corpora take fewer than a thousand, and a
// decision stays within milliseconds (docs/performance.md, "Hostile
// inputs").
const maxSteps = 1 << 14

// parseSteps is what one parse costs besides its bytes: a parser's set-up
// costs about as much as walking thirty nodes.
const parseSteps = 32

// parser is a bash parser for text of the line, from those it has made
// and no one is using (parsing nests: a -c script is read while the line
// is).
func (in *inspector) parser() *syntax.Parser {
	in.spend(parseSteps)
	if n := len(in.parsers); n > 0 {
		p := in.parsers[n-1]
		in.parsers = in.parsers[:n-1]
		return p
	}
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}

func (in *inspector) release(p *syntax.Parser) { in.parsers = append(in.parsers, p) }

// parseBytes is what a line of size bytes may have parsed, its own text
// and the code it hands to shells, evals and interpreters: linear in it.
func parseBytes(size int) int { return 1<<16 + 4*size }

// spend takes n steps of the line's budget, and says whether there were
// enough; the first time there are not, the rest of the line is
// unseeable.
func (in *inspector) spend(n int) bool { return in.take(&in.steps, n) }

// spendBytes takes n bytes of the line's parsing budget.
func (in *inspector) spendBytes(n int) bool { return in.take(&in.bytes, n) }

func (in *inspector) take(left *int, n int) bool {
	if in.spent {
		return false
	}
	*left -= n
	if *left < 0 {
		in.spent = true
		in.found = append(in.found, Finding{Unseeable: "the line holds more than codewhale-ls reads in one decision"})
		return false
	}
	return true
}

// line inspects a shell script: the whole command line (depth 0, via "")
// or code another command runs, via says which.
func (in *inspector) line(src string, depth int, via string) {
	in.script(src, depth, via, feed{})
}

// script inspects a shell script whose first command reads stdin.
func (in *inspector) script(src string, depth int, via string, stdin feed) {
	if depth > maxDepth {
		in.unseeable("shells nested deeper than codewhale-ls follows")
		return
	}
	if !in.spendBytes(len(src)) {
		return
	}
	where := via
	if where == "" {
		where = "the line"
	}
	if n := nesting(src); n > maxNesting {
		in.unseeable(where + " nests " + strconv.Itoa(n) + " deep, deeper than codewhale-ls reads")
		return
	}
	if n := words(src); n > maxWords {
		in.unseeable(where + " holds more than " + strconv.Itoa(maxWords) + " words, operators and quotes outside here-documents, more than codewhale-ls reads")
		return
	}
	src, differs := bashReading(src)
	if differs != "" {
		in.unseeable(where + " holds text bash reads otherwise than codewhale-ls's parser: " + differs)
	}
	p := in.parser()
	defer in.release(p)
	// Each statement is walked as soon as it is read, so a line too long
	// to read stops being parsed when its budget is spent. The first waits
	// for the second: alone, it is the line as written.
	var first *syntax.Stmt
	count := 0
	var err error
	// The loop never breaks: StmtsSeq yields a pending parse error after
	// its body said stop (mvdan.cc/sh v3.14.1), which Go refuses with a
	// panic. A spent budget skips the rest instead, and the words()
	// bound above caps what is left to parse.
	for s, e := range p.StmtsSeq(strings.NewReader(src)) {
		switch {
		case e != nil:
			err = e
		case in.spent:
		case count == 0:
			count++
			first = s
			if stdin.given() {
				in.feeds[s] = stdin
			}
			in.spend(1)
		default:
			count++
			if first != nil {
				in.walk(src, first, depth, via, true)
				first = nil
			}
			in.walk(src, s, depth, via, true)
		}
	}
	if first != nil {
		// A lone command is the line as written; anything else (a chain,
		// a subshell, a group, a loop, code another command runs) holds
		// commands of its own.
		lone := err == nil && isCall(first) && via == ""
		in.walk(src, first, depth, via, !lone)
	}
	if err == nil || in.spent {
		return
	}
	if delim, ok := unclosedHeredoc(err); ok && !strings.HasSuffix(src, "\n"+delim) {
		// bash takes a here-document to the end of the text when its
		// delimiter never comes (with a warning), and runs the command:
		// read it so. The commands before it are read again, to the same
		// findings.
		in.script(src+"\n"+delim, depth, via, stdin)
		return
	}
	// bash runs each complete command before the place it cannot read,
	// and reads some text otherwise than this parser does.
	in.unseeable(where + " holds text bash may read otherwise than codewhale-ls can (" + shorten(err.Error()) + ")")
}

// unclosedHeredoc is the delimiter of a here-document the parser found
// no end of.
func unclosedHeredoc(err error) (string, bool) {
	const prefix = "unclosed here-document `"
	msg := err.Error()
	i := strings.Index(msg, prefix)
	if i < 0 || !strings.HasSuffix(msg, "`") {
		return "", false
	}
	delim := msg[i+len(prefix) : len(msg)-1]
	return delim, delim != "" && !strings.ContainsAny(delim, "\n`")
}

func isCall(s *syntax.Stmt) bool {
	_, ok := s.Cmd.(*syntax.CallExpr)
	return ok && len(s.Redirs) == 0 || ok && !hasInput(s.Redirs)
}

func hasInput(redirs []*syntax.Redirect) bool {
	for _, r := range redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.DplIn, syntax.WordHdoc, syntax.Hdoc, syntax.DashHdoc, syntax.RdrInOut:
			return true
		}
	}
	return false
}

// nesting is how deeply parentheses, braces and backquotes nest in src,
// counted over its bytes whatever quotes them (an over-count is only
// ever an unseeable line).
func nesting(src string) int {
	depth, deepest, backquotes := 0, 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case '`':
			backquotes++
		}
		deepest = max(deepest, depth, backquotes)
	}
	return deepest
}

// maxWords bounds the words text the layer parses may hold outside its
// here-documents: parsing costs about a microsecond a word, and no
// command a person reads has more.
const maxWords = 16384

// words counts the words, operators, quotes, escapes and expansions of
// src outside here-document bodies, roughly
// (quotes are not followed, so `<<` in a string can hide words after it
// from the count: a long parse, never a missed command).
func words(src string) int {
	n := 0
	blank := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '<' && strings.HasPrefix(src[i:], "<<") && !strings.HasPrefix(src[i:], "<<<"):
			i = skipHeredoc(src, i+2) - 1
			blank = true
		case c == ' ' || c == '\t' || c == '\n':
			blank = true
		case c == '|' || c == '&' || c == ';' || c == '(' || c == ')':
			// An operator is a word of the parse's work.
			n++
			blank = true
		case c == '\'' || c == '"' || c == '\\' || c == '$' || c == '`':
			// So is each quote, escape and expansion: a word of 10,000
			// quoted parts costs as much to read as 10,000 words.
			n++
		case blank:
			n++
			blank = false
		}
	}
	return n
}

// skipHeredoc is where the text after a here-document's operator (at
// i, after `<<`) goes on once its body ends: after the line that is its
// delimiter, or the end of src.
func skipHeredoc(src string, i int) int {
	if i < len(src) && src[i] == '-' {
		i++
	}
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	start := i
	for i < len(src) && !strings.ContainsRune(" \t\n;&|<>()", rune(src[i])) {
		i++
	}
	delim := strings.Trim(src[start:i], `'"\`)
	nl := strings.IndexByte(src[i:], '\n')
	if delim == "" || nl < 0 {
		return i
	}
	for at := i + nl + 1; at < len(src); {
		end := strings.IndexByte(src[at:], '\n')
		if end < 0 {
			end = len(src) - at
		}
		if strings.TrimLeft(src[at:at+end], "\t") == delim {
			return at + end
		}
		at += end + 1
	}
	return len(src)
}

// walk inspects every command of a statement, and of the code nested in
// its words (substitutions, arithmetic, parameter expansions).
func (in *inspector) walk(src string, root syntax.Node, depth int, via string, compound bool) {
	if root == nil || reflect.ValueOf(root).IsNil() {
		return // text that is only a comment parses to nothing
	}
	nested := 0
	var stack []syntax.Node
	syntax.Walk(root, func(n syntax.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if isSubstitution(top) {
				nested--
			}
			return true
		}
		if !in.spend(1) {
			return false
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			nested++
		case *syntax.Stmt:
			if _, ok := n.Cmd.(*syntax.BinaryCmd); ok {
				// A chain or pipeline, walked a command at a time: one of
				// 100,000 commands nests as deep as a tree.
				for _, leaf := range in.chain(src, n) {
					in.walk(src, leaf, depth, via, compound || nested > 0)
				}
				stack = stack[:len(stack)-1]
				return false
			}
			in.redirections(src, n, depth)
			switch cmd := n.Cmd.(type) {
			case *syntax.CallExpr:
				in.call(src, n, cmd, depth, via, compound || nested > 0, nested > 0)
			case *syntax.DeclClause:
				in.declare(src, cmd, depth)
			case *syntax.Block, *syntax.Subshell:
				// What a pipe gives a group, its first command reads.
				if f, ok := in.feeds[n]; ok {
					if first := firstStmt(cmd); first != nil {
						in.feeds[first] = f
					}
				}
			}
		case *syntax.Assign:
			if n.Index != nil {
				in.arith(src, n.Index, depth)
			}
		case *syntax.ArithmExp:
			in.arith(src, n.X, depth)
		case *syntax.ArithmCmd:
			in.arith(src, n.X, depth)
		case *syntax.LetClause:
			for _, e := range n.Exprs {
				in.letExpr(src, e, depth)
			}
		case *syntax.CStyleLoop:
			for _, e := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
				if e != nil {
					in.arith(src, e, depth)
				}
			}
		case *syntax.ParamExp:
			in.paramExp(src, n, depth)
		case *syntax.BinaryTest:
			in.binaryTest(src, n, depth)
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); ok {
					in.nameOperand(src, w, depth, "[[ -v ]]")
				}
			}
		}
		return true
	})
}

// chain is the commands of a chain or pipeline in the order they run,
// found without recursion; what each pipe gives the command on its right
// is noted as it goes.
func (in *inspector) chain(src string, s *syntax.Stmt) []*syntax.Stmt {
	var leaves []*syntax.Stmt
	stack := []*syntax.Stmt{s}
	for len(stack) > 0 && in.spend(1) {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b, ok := top.Cmd.(*syntax.BinaryCmd)
		if !ok {
			leaves = append(leaves, top)
			continue
		}
		if b.Op == syntax.Pipe || b.Op == syntax.PipeAll {
			in.feeds[b.Y] = in.output(src, b.X)
		}
		stack = append(stack, b.Y, b.X)
	}
	return leaves
}

func firstStmt(cmd syntax.Command) *syntax.Stmt {
	switch c := cmd.(type) {
	case *syntax.Block:
		if len(c.Stmts) > 0 {
			return c.Stmts[0]
		}
	case *syntax.Subshell:
		if len(c.Stmts) > 0 {
			return c.Stmts[0]
		}
	}
	return nil
}

func isSubstitution(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		return true
	}
	return false
}

// call inspects one simple command.
func (in *inspector) call(src string, stmt *syntax.Stmt, expr *syntax.CallExpr, depth int, via string, compound, nested bool) {
	env := map[string]value{}
	for _, a := range expr.Assigns {
		if a.Name == nil {
			continue
		}
		v := in.assignedValue(src, a)
		if in.integers[a.Name.Value] && a.Value != nil {
			// An integer variable's assignment, += too, is arithmetic.
			if text := in.unsplit(src, a.Value); text.known {
				in.arithText(text.text, depth, "assigning to the integer variable "+a.Name.Value)
			}
		}
		if len(expr.Args) == 0 {
			in.setVar(a.Name.Value, v, depth)
		} else {
			env[a.Name.Value] = v
			in.special(a.Name.Value, v, depth)
		}
	}
	if len(expr.Args) == 0 {
		return
	}
	// As written, before brace splitting rewrites the words in place.
	written := shorten(strings.TrimSpace(source(src, expr)))
	c := &command{stdin: in.stdin(src, stmt), depth: depth, env: env}
	var hows []string
	var open []Pattern
	for i, w := range expr.Args {
		if !in.spend(1) {
			return
		}
		fields, pattern, how := in.fields(src, w)
		if how != "" && !slices.Contains(hows, how) {
			hows = append(hows, how)
		}
		if pattern != nil && open == nil {
			if i == 0 {
				why := "the command's name is built when the line runs (" + shorten(source(src, w)) + ")"
				if in.ifs {
					why += ", and the line changes IFS, so its words split where nobody reading it expects"
				}
				in.unseeable(why)
				return
			}
			c.open = len(c.words)
		}
		if open != nil || pattern != nil {
			if pattern != nil {
				open = append(open, *pattern)
				c.words = append(c.words, source(src, w))
			} else {
				for _, f := range fields {
					open = append(open, Pattern{Glob: globEscape(f)})
					c.words = append(c.words, f)
				}
			}
			continue
		}
		c.words = append(c.words, fields...)
	}
	if open == nil {
		c.open = len(c.words)
	}
	c.patterns = open
	if len(c.words) == 0 {
		return
	}
	if c.open == 0 {
		in.unseeable("the command's name is built when the line runs (" + written + ")")
		return
	}
	if name, alike := unconfuse(c.words[0]); alike {
		hows = append(hows, "`"+c.words[0]+"` is `"+name+"` written with look-alike letters")
		c.words[0] = name
	}
	text := join(c.words[:c.open])
	why := strings.Join(hows, "; ")
	shown := "`" + shorten(text) + "`"
	switch {
	case open != nil:
		in.add(Finding{Command: text, Open: open, Why: "`" + written + "` runs " + shown + " followed by words only known when it runs"})
	case why != "":
		in.add(Finding{Command: text, Why: "`" + written + "` runs " + shown + ": " + why})
	case nested:
		in.add(Finding{Command: text, Why: shown + " runs inside a command substitution"})
	case via != "":
		in.add(Finding{Command: text, Why: shown + " is run by " + via})
	case compound:
		in.add(Finding{Command: text, Why: shown + " is one command of the line"})
	}
	in.builtin(c)
	in.writes(src, stmt, c)
	in.runs(c)
}

// shorten is text cut to maxQuoted bytes for a finding's Why.
func shorten(text string) string {
	if len(text) <= maxQuoted {
		return text
	}
	cut := maxQuoted
	for cut > 0 && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut] + "…"
}

// runs inspects what the command itself runs.
func (in *inspector) runs(c *command) {
	name := c.name()
	args := c.args()
	depth := c.depth
	switch {
	case name == "alias":
		for _, a := range args {
			if k, v, ok := strings.Cut(a, "="); ok {
				in.aliases[k] = v
			}
		}
	case in.aliases[c.words[0]] != "":
		in.line(in.aliases[c.words[0]]+" "+join(c.words[1:]), depth+1, "the alias `"+c.words[0]+"`")
	case name == "cp" || name == "ln" || name == "install" || name == "mv":
		in.copies(c)
	case name == "rm":
		in.rm(c)
	case isShell(name) || in.shells[c.words[0]] || in.shells[name]:
		in.shell(c)
	case in.files[c.words[0]] != (value{}) || in.files[strings.TrimPrefix(c.words[0], "./")] != (value{}):
		in.scriptFile(c, c.words[0], "the file `"+shorten(c.words[0])+"` the line writes")
	case name == "eval":
		in.line(c.codeFrom(1), depth+1, "eval")
	case name == "source" || name == ".":
		if len(args) > 0 {
			in.scriptFile(c, args[0], name)
		} else if !c.complete() {
			in.unseeable(name + " reads a file named when the line runs")
		}
	case name == "xargs":
		in.xargs(c)
	case name == "find":
		in.findExec(c)
	case name == "git":
		in.gitAlias(c)
	case name == "cargo" || strings.HasPrefix(name, "git-"):
		in.otherName(c)
	case isWrapper(name):
		in.unwrap(c)
	case in.launch(c):
	case isInterpreter(name):
		in.interpreter(c)
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		in.awk(c)
	case name == "sed" || name == "gsed":
		in.sed(c)
	}
}

// openTail is the source of the command's words built at run time, to
// follow words a wrapper hands on (so what it runs stays open).
func openTail(c *command) string {
	if c.complete() {
		return ""
	}
	return " " + strings.Join(c.words[c.open:], " ")
}

// shell inspects what a shell runs: its -c script, the script file it is
// given, or what it reads from its standard input.
func (in *inspector) shell(c *command) {
	name := path.Base(c.words[0])
	in.startupFile(c, name)
	via := "`" + name + " -c`"
	args := c.args()
	for i, a := range args {
		switch {
		case a == "--" || a == "-" || a == "-s":
			continue
		case strings.HasPrefix(a, "--"):
			continue
		case (a == "-o" || a == "+o" || a == "-O" || a == "+O") && i+1 < len(args):
			continue
		case strings.HasPrefix(a, "-") && strings.Contains(a, "c"):
			if i+2 < len(c.words) {
				in.line(c.code(i+2), c.depth+1, via)
			}
			return
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			continue
		default:
			if i > 0 && (args[i-1] == "-o" || args[i-1] == "+o" || args[i-1] == "-O" || args[i-1] == "+O") {
				continue
			}
			in.scriptFile(c, a, name)
			return
		}
	}
	if !c.complete() {
		in.unseeable(name + " runs a script named when the line runs")
		return
	}
	in.scriptFile(c, "-", name)
}

// startupFile inspects the file a non-interactive shell sources first:
// $BASH_ENV (bash), $ENV (sh), as the command's own assignment or a
// variable the line sets.
func (in *inspector) startupFile(c *command, name string) {
	for _, variable := range []string{"BASH_ENV", "ENV"} {
		v, ok := c.env[variable]
		if !ok {
			v, ok = in.vars[variable]
		}
		switch {
		case !ok:
		case !v.known:
			in.unseeable(name + " first runs the file " + variable + " names, which is only known when the line runs")
		case v.text != "":
			in.scriptFile(c, v.text, name+" sourcing "+variable)
		}
	}
}

// scriptFile inspects a script a shell or source runs from a file, by
// the one rule for code from a file (codeFrom, docs/hardening.md, "Code
// from a file").
func (in *inspector) scriptFile(c *command, file, runner string) {
	if text, ok := in.codeFrom(c, file, runner); ok {
		in.line(text, c.depth+1, runner+" running `"+shorten(file)+"`")
	}
}

// copies follows a shell copied or linked to another name, and a file
// the line wrote copied to another.
func (in *inspector) copies(c *command) {
	args := afterOptions(c.args(), []string{"-t", "-m", "-o", "-g", "-S", "--target-directory", "--mode", "--suffix"})
	if len(args) < 2 || !c.complete() {
		in.copiesOpen(c)
		return
	}
	dest := args[len(args)-1]
	for _, src := range args[:len(args)-1] {
		if isShell(path.Base(src)) {
			in.shells[path.Base(dest)], in.shells[dest] = true, true
		}
		if v, ok := in.files[src]; ok {
			in.files[dest] = v
		}
		if !strings.Contains(src, "/") {
			continue
		}
		// A program copied or linked under another name runs as itself.
		in.aliases[dest], in.aliases["./"+strings.TrimPrefix(dest, "./")] = src, src
	}
}

func describeFeed(f feed) string {
	if f.known {
		return "`" + shorten(strings.TrimSpace(f.text)) + "`"
	}
	return f.from
}

// stdin is what a statement's command reads on its standard input: a
// pipe, a here-string or here-document, a file or file descriptor.
func (in *inspector) stdin(src string, stmt *syntax.Stmt) feed {
	f := in.feeds[stmt]
	for _, r := range stmt.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.WordHdoc:
			text, open := literal(src, r.Word)
			if open == "" {
				f = feed{text: text + "\n", known: true}
			} else {
				f = feed{from: "a here-string built when the line runs"}
			}
		case syntax.Hdoc, syntax.DashHdoc:
			f = in.heredoc(src, r)
		case syntax.RdrIn, syntax.RdrInOut:
			if ps := soleProcSubst(r.Word); ps != nil {
				// < <(…): what the commands print.
				f = in.output(src, &syntax.Stmt{Cmd: &syntax.Block{Stmts: ps.Stmts}})
				continue
			}
			name, open := literal(src, r.Word)
			switch v, ok := in.files[name]; {
			case open != "":
				f = feed{from: "a file named when the line runs"}
			case ok && v.known:
				f = feed{text: v.text, known: true}
			default:
				f = feed{from: "the file `" + shorten(name) + "`"}
			}
		case syntax.DplIn:
			fd, _ := literal(src, r.Word)
			if v, ok := in.fds[fd]; ok && v.known {
				f = feed{text: v.text, known: true}
			} else {
				f = feed{from: "file descriptor " + fd}
			}
		}
	}
	return f
}

// soleProcSubst is the process substitution a word is made of alone.
func soleProcSubst(w *syntax.Word) *syntax.ProcSubst {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	ps, _ := w.Parts[0].(*syntax.ProcSubst)
	return ps
}

// heredoc is what a here-document gives: its text when nothing in it is
// expanded when the line runs.
func (in *inspector) heredoc(src string, r *syntax.Redirect) feed {
	if r.Hdoc == nil {
		return feed{text: "", known: true}
	}
	text, open := literal(src, r.Hdoc)
	if open != "" {
		return feed{from: "a here-document with expansions"}
	}
	return feed{text: text, known: true}
}

// redirections notes the file descriptors `exec N<<<…` opens for the
// rest of the line, and inspects the commands process substitutions run.
func (in *inspector) redirections(src string, stmt *syntax.Stmt, depth int) {
	ce, ok := stmt.Cmd.(*syntax.CallExpr)
	execOnly := ok && len(ce.Args) == 1 && lit(src, ce.Args[0]) == "exec" || ok && len(ce.Args) == 0
	if !execOnly {
		return
	}
	for _, r := range stmt.Redirs {
		if r.N == nil {
			continue
		}
		fd := r.N.Value
		switch r.Op {
		case syntax.WordHdoc:
			text, open := literal(src, r.Word)
			in.fds[fd] = value{text: text + "\n", known: open == ""}
		case syntax.Hdoc, syntax.DashHdoc:
			f := in.heredoc(src, r)
			in.fds[fd] = value{text: f.text, known: f.known}
		case syntax.RdrIn, syntax.RdrInOut:
			name, _ := literal(src, r.Word)
			in.fds[fd] = in.files[name]
		}
	}
}

// writes notes what a command writes to files with > and >> (and tee),
// for a later `sh FILE`, `source FILE` or `./FILE` in the line.
func (in *inspector) writes(src string, stmt *syntax.Stmt, c *command) {
	out := in.outputOf(c)
	for _, r := range stmt.Redirs {
		if r.N != nil && r.N.Value != "1" && r.N.Value != "&" {
			continue
		}
		if r.Op != syntax.RdrOut && r.Op != syntax.AppOut && r.Op != syntax.RdrAll && r.Op != syntax.AppAll && r.Op != syntax.RdrClob {
			continue
		}
		name, open := literal(src, r.Word)
		if open != "" {
			continue
		}
		in.write(name, out, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
	}
	if c.name() == "tee" && c.complete() {
		for _, a := range afterOptions(c.args(), nil) {
			in.write(a, value{text: c.stdin.text, known: c.stdin.known}, slices.Contains(c.args(), "-a"))
		}
	}
}

func (in *inspector) write(name string, out value, appending bool) {
	if prev, ok := in.files[name]; ok && appending {
		out = value{text: prev.text + out.text, known: prev.known && out.known}
	}
	in.files[name] = out
}

// lit is a word's literal value, "" when it has none.
func lit(src string, w *syntax.Word) string {
	s, open := literal(src, w)
	if open != "" {
		return ""
	}
	return s
}
