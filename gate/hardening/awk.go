package hardening

import (
	"regexp"
	"slices"
	"strings"
)

// awk inspects the commands an awk program runs, read by awk's grammar
// (awklex.go): system(EXPR), print and printf piped into a command
// (| and gawk's |&), and EXPR | getline. Where EXPR is a constant string
// expression (literals, concatenation, parentheses, variables the
// program, -v or an operand assign only such values) the command is
// judged, fed what the program prints into it; where it is not, a
// person decides. Code from a file (-f, gawk's -E, -i and @include) is
// read by the rule of docs/hardening.md, "Code from a file".
func (in *inspector) awk(c *command) {
	opts, operands := awkOptions.read(in.argTexts(c))
	prog := awkProgram{vars: awkVars{assigned: map[string][][]awkTok{}, unknown: map[string]bool{}, memo: map[string]awkValues{}, busy: map[string]bool{}}}
	var sources []string
	given := false
	for _, o := range opts {
		if o.unsure {
			in.unseeable("awk is given an option built when the line runs, which may be a program")
			return
		}
		if o.name == "W" {
			// -W NAME[=VALUE]: gawk's long options; mawk's -W exec FILE
			// (abbreviated as far as -We) takes the program from the
			// next word and ends the options.
			name, value, valued := strings.Cut(o.value, "=")
			if !valued && name != "" && strings.HasPrefix("exec", name) {
				given = true
				if len(operands) > 0 {
					sources = append(sources, in.awkFile(c, operands[0], "mawk -W exec", &prog))
					operands = operands[1:]
				}
				continue
			}
			o = option{name: awkOptions.longName(name), value: value}
		}
		switch o.name {
		case "v", "assign":
			prog.assign(o.value)
		case "e", "source":
			given = true
			sources = append(sources, o.value)
		case "f", "file", "E", "exec":
			given = true
			sources = append(sources, in.awkFile(c, o.value, "awk "+optionName(o.name), &prog))
		case "i", "include":
			sources = append(sources, in.awkFile(c, o.value, "gawk -i", &prog))
		case "l", "load":
			in.awkLoad(c, o.value)
		}
	}
	if !given {
		if len(operands) == 0 {
			return
		}
		sources = append(sources, operands[0])
		operands = operands[1:]
	}
	for _, a := range operands {
		if awkAssignment.MatchString(a) {
			prog.assign(a)
		} else if strings.HasPrefix(a, hole) {
			prog.vars.all = true // it may be an assignment
		}
	}
	// awks read some text otherwise (awkReadings): a / after ++, -- and
	// length, gawk and BWK awk by their grammar (a division), mawk by
	// the token before it (a regex); a / in a regex's bracket expression,
	// which older awks take as its end. Each reading is judged, so none
	// can hide code from another.
	readings := make([][]awkTok, len(awkReadings))
	failed := make([]string, len(awkReadings))
	included := map[string]bool{}
	for i := 0; i < len(sources); i++ {
		if !in.spend(len(awkReadings) * len(sources[i])) {
			return
		}
		for r, how := range awkReadings {
			if failed[r] != "" {
				continue
			}
			toks, codeHole, err := lexAwk(sources[i], how)
			if codeHole {
				in.unseeable("awk runs a program built when the line runs")
				return
			}
			if err != "" {
				failed[r] = err // that awk rejects the program and runs none of it
				continue
			}
			for _, inc := range directives(toks, "include") {
				if !included[inc] && len(sources) < 16 {
					included[inc] = true
					sources = append(sources, in.awkFile(c, inc, "gawk's @include", &prog))
				}
			}
			for _, lib := range directives(toks, "load") {
				in.awkLoad(c, lib)
			}
			readings[r] = append(append(readings[r], toks...), awkTok{kind: ';', text: "\n"})
		}
	}
	if !slices.Contains(failed, "") {
		for _, src := range sources {
			if awkRuns.MatchString(src) {
				in.unseeable("codewhale-ls cannot read the awk program (" + failed[0] + "), which may run commands")
				break
			}
		}
		return
	}
	judged := [][]awkTok{}
	for r, toks := range readings {
		if failed[r] != "" || slices.ContainsFunc(judged, func(t []awkTok) bool { return slices.Equal(t, toks) }) {
			continue
		}
		judged = append(judged, toks)
		read := prog.reading(toks)
		read.read()
		if read.vars.work < 0 {
			in.unseeable("the awk program is more than codewhale-ls reads in one decision")
			return
		}
		in.awkRuns(c, read)
	}
}

// awkOptions are the options of gawk, mawk, busybox awk and POSIX awk.
var awkOptions = getopt{
	short: "F:f:v:W:e:E:i:l:bcCd::D::ghL::MnNo::Op::PrsStVY",
	long: map[string]int{
		"assign": 1, "field-separator": 1, "file": 1, "exec": 1, "include": 1, "source": 1, "load": 1,
		"bignum": 0, "characters-as-bytes": 0, "copyright": 0, "debug": 2, "dump-variables": 2, "gen-pot": 0,
		"help": 0, "lint": 2, "lint-old": 0, "no-optimize": 0, "non-decimal-data": 0, "optimize": 0,
		"posix": 0, "pretty-print": 2, "profile": 2, "re-interval": 0, "sandbox": 0, "traditional": 0,
		"use-lc-numeric": 0, "version": 0, "csv": 0,
	},
	stop: []string{"E", "exec"},
}

var (
	awkAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	// awkRuns is text that may run a command, in a program that cannot
	// be read.
	awkRuns = regexp.MustCompile(`system|getline|\||@|` + hole)
)

// optionName is an option as written: -f, --file.
func optionName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// awkFile is the program text of a file awk reads code from; a file
// that exists before the line is judged by its name, and the variables
// it may set are then unknown.
func (in *inspector) awkFile(c *command, file, runner string, prog *awkProgram) string {
	text, read := in.codeFrom(c, file, runner)
	if _, written := in.files[file]; !read && !written && !strings.Contains(file, "/") {
		// gawk looks for FILE.awk too.
		text, read = in.codeFrom(c, file+".awk", runner)
	}
	if !read {
		prog.vars.all = true
	}
	return text
}

// awkLoad inspects a gawk extension loaded from a file the line writes.
func (in *inspector) awkLoad(c *command, lib string) {
	for _, f := range []string{lib, lib + ".so"} {
		_, ok := in.files[f]
		if _, bare := in.files[strings.TrimPrefix(f, "./")]; ok || bare {
			in.unseeable("gawk loads the extension `" + shorten(f) + "`, which the line writes")
		}
	}
	if strings.Contains(lib, hole) {
		in.unseeable("gawk loads an extension named when the line runs")
	}
}

// directives are the files gawk's @include or @load (the name) name.
func directives(toks []awkTok, name string) []string {
	var out []string
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].is('o', "@") && toks[i+1].is('w', name) && toks[i+2].kind == 's' {
			out = append(out, toks[i+2].text)
		}
	}
	return out
}

// awkProgram is an awk program's tokens and what reading them finds.
type awkProgram struct {
	toks []awkTok
	vars awkVars
	// system are the arguments of system() and the commands getline
	// reads; pipes the commands print writes into, with what it prints.
	system [][]awkTok
	getter [][]awkTok
	pipes  []awkPipe
	// files are the files print writes, with what it prints.
	files []awkPipe
	// unread says the program pipes somewhere this reading cannot find.
	unread bool
	// indirect are the names of indirect calls (gawk's @f()).
	indirect []string
}

// awkPipe is one print or printf into a command or a file.
type awkPipe struct {
	dest    []awkTok
	text    string
	known   bool
	appends bool
}

// reading is a program of these tokens with the assignments -v and the
// operands made, and what code files it cannot read left unknown.
func (p *awkProgram) reading(toks []awkTok) *awkProgram {
	vars := awkVars{assigned: map[string][][]awkTok{}, unknown: map[string]bool{}, all: p.vars.all, memo: map[string]awkValues{}, busy: map[string]bool{}}
	for k, v := range p.vars.assigned {
		vars.assigned[k] = slices.Clone(v)
	}
	for k, v := range p.vars.unknown {
		vars.unknown[k] = v
	}
	vars.work = 1<<12 + 16*len(toks)
	return &awkProgram{toks: toks, vars: vars}
}

// assign notes a -v or operand assignment NAME=VALUE (escapes decoded).
func (p *awkProgram) assign(a string) {
	name, value, ok := strings.Cut(a, "=")
	switch {
	case !ok || strings.Contains(name, hole):
		p.vars.all = true
	case strings.Contains(value, hole):
		p.vars.unknown[name] = true
	default:
		p.vars.assigned[name] = append(p.vars.assigned[name], []awkTok{{kind: 's', text: awkEscapes(value)}})
	}
}

// read finds the program's assignments, its system() calls, getline
// commands and print pipes.
func (p *awkProgram) read() {
	t := p.toks
	used := map[int]bool{} // the | and |& tokens accounted for
	for i := 0; i < len(t) && p.vars.work >= 0; i++ {
		tok := t[i]
		next := func(k int) awkTok {
			if i+k < len(t) {
				return t[i+k]
			}
			return awkTok{kind: ';'}
		}
		if tok.kind == 'w' && (i == 0 || !t[i-1].is('o', "$")) && !awkKeywords[tok.text] {
			p.variable(i)
		}
		switch {
		case tok.is('w', "SYMTAB"):
			p.vars.all = true
		case tok.is('w', "function") || tok.is('w', "func"):
			if !next(2).is('o', "(") {
				break
			}
			if end := p.matching(i + 2); end > 0 {
				for _, a := range t[i+3 : end] {
					if a.kind == 'w' {
						p.vars.unknown[a.text] = true
					}
				}
			}
		case tok.is('o', "@") && next(1).kind == 'w' && next(2).is('o', "("):
			p.indirect = append(p.indirect, next(1).text)
		case tok.is('w', "system") && next(1).is('o', "("):
			if end := p.matching(i + 1); end > 0 {
				p.system = append(p.system, t[i+2:end])
			}
		case tok.is('w', "getline") && next(1).kind == 'w' && !awkKeywords[next(1).text]:
			p.vars.unknown[next(1).text] = true
		case (tok.is('w', "sub") || tok.is('w', "gsub")) && next(1).is('o', "("):
			if end := p.matching(i + 1); end > 0 {
				args := splitTop(t[i+2:end], ",")
				if len(args) == 3 && len(args[2]) == 1 && args[2][0].kind == 'w' {
					p.vars.unknown[args[2][0].text] = true
				}
			}
		case tok.is('w', "for") && next(1).is('o', "(") && next(2).kind == 'w' && next(3).is('w', "in"):
			p.vars.unknown[next(2).text] = true
		case (tok.is('o', "|") || tok.is('o', "|&")) && next(1).is('w', "getline"):
			used[i] = true
			start := leftOperand(t, i)
			p.vars.charge(i - start)
			p.getter = append(p.getter, t[start:i])
		case tok.is('w', "print") || tok.is('w', "printf"):
			end := statementEnd(t, i+1)
			p.vars.charge(end - i)
			p.print(t[i:end], i, used)
		}
	}
	for i, tok := range t {
		if (tok.is('o', "|") || tok.is('o', "|&")) && !used[i] {
			p.unread = true
		}
	}
}

// matching is the index of the ) closing the token at open, -1 when
// none, charged to the work left.
func (p *awkProgram) matching(open int) int {
	end := matching(p.toks, open)
	if end < 0 {
		p.vars.charge(len(p.toks) - open)
	} else {
		p.vars.charge(end - open)
	}
	return end
}

// variable notes how the name at t[i] is written, when it is.
func (p *awkProgram) variable(i int) {
	t, name := p.toks, p.toks[i].text
	after := awkTok{kind: ';'}
	if i+1 < len(t) {
		after = t[i+1]
	}
	switch {
	case after.is('o', "[") || after.is('o', "("):
		return
	case after.is('o', "="):
		end := exprEnd(t, i+2)
		p.vars.charge(2 * (end - i))
		p.vars.assigned[name] = append(p.vars.assigned[name], t[i+2:end])
	case after.kind == 'o' && (strings.HasSuffix(after.text, "=") && after.text != "==" && after.text != "<=" && after.text != ">=" && after.text != "!=" || after.text == "++" || after.text == "--"):
		p.vars.unknown[name] = true
	case i > 0 && (t[i-1].is('o', "++") || t[i-1].is('o', "--")):
		p.vars.unknown[name] = true
	}
}

// print reads one print or printf statement: its items, and where it
// writes them (| or |& a command, > or >> a file). at is its index in
// the program's tokens.
func (p *awkProgram) print(stmt []awkTok, at int, used map[int]bool) {
	depth := 0
	for i := 1; i < len(stmt); i++ {
		switch t := stmt[i]; {
		case t.is('o', "(") || t.is('o', "["):
			depth++
		case t.is('o', ")") || t.is('o', "]"):
			depth--
		case depth == 0 && (t.is('o', "|") || t.is('o', "|&") || t.is('o', ">") || t.is('o', ">>")):
			if i+1 < len(stmt) && stmt[i+1].is('w', "getline") {
				continue
			}
			text, known := p.printed(stmt[0].text, stmt[1:i])
			out := awkPipe{dest: stmt[i+1:], text: text, known: known, appends: t.text == ">>"}
			if t.text == "|" || t.text == "|&" {
				used[at+i] = true
				p.pipes = append(p.pipes, out)
			} else {
				p.files = append(p.files, out)
			}
			return
		}
	}
}

// printed is what print or printf writes for its items, when known.
func (p *awkProgram) printed(verb string, items []awkTok) (string, bool) {
	list := splitTop(items, ",")
	if len(list) == 1 && len(list[0]) > 0 && list[0][0].is('o', "(") && matching(list[0], 0) == len(list[0])-1 {
		list = splitTop(list[0][1:len(list[0])-1], ",")
	}
	var args []string
	for _, item := range list {
		v := p.vars.eval(item)
		if len(v) != 1 {
			return "", false
		}
		args = append(args, v[0])
	}
	if verb == "printf" {
		if len(args) == 0 {
			return "", false
		}
		return awkPrintf(args[0], args[1:])
	}
	ofs, ors := p.vars.value("OFS"), p.vars.value("ORS")
	if len(args) == 0 || len(ofs) != 1 || len(ors) != 1 {
		return "", false // print alone prints $0
	}
	return strings.Join(args, ofs[0]) + ors[0], true
}

// splitTop splits tokens at the operator op outside parentheses.
func splitTop(toks []awkTok, op string) [][]awkTok {
	var out [][]awkTok
	for {
		i := topLevel(toks, op)
		if i < 0 {
			return append(out, toks)
		}
		out = append(out, toks[:i])
		toks = toks[i+1:]
	}
}

// statementEnd is the index of the end of the statement starting at
// from: a ; or newline, or a } or ) closing what holds it.
func statementEnd(t []awkTok, from int) int {
	depth := 0
	for i := from; i < len(t); i++ {
		switch {
		case t[i].is('o', "(") || t[i].is('o', "[") || t[i].is('o', "{"):
			depth++
		case t[i].is('o', ")") || t[i].is('o', "]") || t[i].is('o', "}"):
			if depth--; depth < 0 {
				return i
			}
		case t[i].kind == ';' && depth == 0:
			return i
		}
	}
	return len(t)
}

// exprEnd is the index of the end of the expression starting at from,
// the right side of an assignment: a , or the end of its statement.
func exprEnd(t []awkTok, from int) int {
	end := statementEnd(t, from)
	if i := topLevel(t[from:end], ","); i >= 0 {
		return from + i
	}
	return end
}

// leftOperand is the index where the operand of | getline ending before
// pipe starts: back over operands, concatenation and arithmetic, to an
// open parenthesis, a statement's start or an operator binding looser.
func leftOperand(t []awkTok, pipe int) int {
	depth := 0
	for i := pipe - 1; i >= 0; i-- {
		tok := t[i]
		switch {
		case tok.is('o', ")") || tok.is('o', "]"):
			depth++
		case tok.is('o', "(") || tok.is('o', "["):
			if depth == 0 {
				return i + 1
			}
			depth--
		case depth > 0:
		case tok.kind == ';' || tok.kind == 'o' && looser[tok.text] || tok.kind == 'w' && awkKeywords[tok.text]:
			return i + 1
		}
	}
	return 0
}

// looser are the operators that bind looser than | getline's operand.
var looser = map[string]bool{
	",": true, "{": true, "}": true, "=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true,
	"^=": true, "**=": true, "&&": true, "||": true, "!": true, "?": true, ":": true, "<": true, "<=": true,
	">": true, ">=": true, "==": true, "!=": true, "~": true, "!~": true, "|": true, "|&": true, ">>": true,
}

// awkRuns judges what the program runs.
func (in *inspector) awkRuns(c *command, p *awkProgram) {
	depth := c.depth + 1
	run := func(exprs [][]awkTok, via, unknown string, stdin feed) {
		for _, e := range exprs {
			vals := p.vars.eval(e)
			if vals == nil {
				in.unseeable(unknown)
				continue
			}
			for _, v := range vals {
				if strings.Contains(v, hole) {
					in.unseeable(unknown)
				} else if v != "" {
					in.script(v, depth, via, stdin)
				}
			}
		}
	}
	run(p.system, "awk's system()", "awk's system() runs a command it builds when it runs", c.stdin)
	run(p.getter, "awk's getline", "awk reads what a command it builds when it runs prints", c.stdin)
	// What each command is fed: all that is printed into it.
	type fed struct {
		text  string
		known bool
	}
	feeds := map[string]*fed{}
	var order []string
	for _, pipe := range p.pipes {
		vals := p.vars.eval(pipe.dest)
		if vals == nil {
			in.unseeable("awk prints into a command it builds when it runs")
			continue
		}
		for _, v := range vals {
			if strings.Contains(v, hole) {
				in.unseeable("awk prints into a command built when the line runs")
				continue
			}
			if strings.HasPrefix(v, "/inet") {
				continue // gawk's network connection, no command
			}
			f, ok := feeds[v]
			if !ok {
				f = &fed{known: true}
				feeds[v] = f
				order = append(order, v)
			}
			f.text += pipe.text
			f.known = f.known && pipe.known && !strings.Contains(pipe.text, hole)
		}
	}
	for _, v := range order {
		stdin := feed{from: "what awk prints"}
		if f := feeds[v]; f.known {
			stdin = feed{text: f.text, known: true}
		}
		in.script(v, depth, "awk printing into `"+shorten(v)+"`", stdin)
	}
	for _, name := range p.indirect {
		if vals := p.vars.value(name); vals == nil || slices.Contains(vals, "system") {
			in.unseeable("gawk calls a function it names when it runs (@" + name + "())")
		}
	}
	if p.unread {
		in.unseeable("awk pipes into or from a command codewhale-ls cannot find in its program")
	}
	in.awkWrites(p)
}

// awkWrites notes the files the program prints into, for a later
// `sh FILE` of the line.
func (in *inspector) awkWrites(p *awkProgram) {
	written := map[string]bool{}
	for _, f := range p.files {
		vals := p.vars.eval(f.dest)
		if len(vals) != 1 || strings.Contains(vals[0], hole) {
			continue
		}
		name := vals[0]
		if name == "/dev/stdout" || name == "/dev/stderr" || name == "-" {
			continue
		}
		out := value{text: f.text, known: f.known}
		in.write(name, out, written[name] || f.appends)
		written[name] = true
	}
}
