package shellsafety

import "strings"

// parsed is a command line lexed once, with what every classifier reads of
// it, so that ReadOnly, the analyzer and the destructive-like test share one
// pass over the text. It is filled in place by parse and not changed after.
type parsed struct {
	text     string
	complete bool // no quote left open
	// controlBytes: a NUL, newline or carriage return anywhere in text.
	controlBytes bool
	// argv holds the words of every simple command in order, redirection
	// operators and their targets removed; stages slice it.
	argv   []string
	stages []stage
	// pipesOnly: no operator but `|`, and no empty stage (nor an empty
	// command) — the only shape ReadOnly accepts.
	pipesOnly bool
	// noOperators: not one operator of any kind, WorkspaceSafe's shape.
	noOperators bool
	// expands, globs: some word does (see word).
	expands, globs bool

	// Backing for argv and stages, enough for most commands, and the
	// reader's state, so a parse allocates nothing beyond the parsed value.
	argvSpace  [8]string
	stageSpace [2]stage
	reader     parseReader
}

// stage is one simple command of a pipeline, argv[start:end]. Pipelines
// are `a | b | c`; every operator other than a pipe ends one (;, &&, ||,
// &, newline, parentheses), so a subshell's commands are seen like any
// others. Empty stages are dropped.
type stage struct {
	start, end int
	// first: the stage opens its pipeline.
	first bool
	// nameGlobs, argGlobs: the program name, or some argument, globs.
	nameGlobs, argGlobs bool
}

// words returns the stage's argv, capped so no append can reach the next
// stage's words.
func (p *parsed) words(s stage) []string {
	return p.argv[s.start:s.end:s.end]
}

// parse reads command.
func parse(command string) *parsed {
	p := new(parsed)
	p.read(command)
	return p
}

// read parses command into p, in place so argv and stages can point into
// p's own space.
func (p *parsed) read(command string) {
	*p = parsed{text: command, pipesOnly: true, noOperators: true,
		controlBytes: strings.IndexByte(command, 0) >= 0 || strings.IndexByte(command, '\n') >= 0 || strings.IndexByte(command, '\r') >= 0}
	p.argv, p.stages = p.argvSpace[:0], p.stageSpace[:0]
	r := &p.reader
	*r = parseReader{p: p, nextFirst: true}
	p.complete = lexTo(command, r)
	if r.pipeStageWords == 0 {
		p.pipesOnly = false
	}
	r.endStage()
}

// parseReader turns the lexer's tokens into a parsed.
type parseReader struct {
	p          *parsed
	cur        stage
	nextFirst  bool // the next stage opens a pipeline
	skipTarget bool // the next word is a redirection's target
	// pipeStageWords counts words since the last operator, targets
	// included: ReadOnly's test of an empty stage.
	pipeStageWords int
}

func (r *parseReader) word(w word) {
	p := r.p
	p.expands = p.expands || w.expands
	p.globs = p.globs || w.globs
	r.pipeStageWords++
	if r.skipTarget {
		r.skipTarget = false
		return
	}
	if r.cur.end == r.cur.start {
		r.cur.nameGlobs = w.globs
	} else {
		r.cur.argGlobs = r.cur.argGlobs || w.globs
	}
	p.argv = append(p.argv, w.text)
	r.cur.end++
}

func (r *parseReader) operator(op string) {
	r.p.noOperators = false
	if op != opPipe || r.pipeStageWords == 0 {
		r.p.pipesOnly = false
	}
	r.pipeStageWords = 0
	r.skipTarget = false
	switch op {
	case opRedirectOut, opRedirectIn:
		r.skipTarget = true
	case opPipe, opPipeAll:
		r.endStage()
	default:
		r.endStage()
		r.nextFirst = true
	}
}

func (r *parseReader) endStage() {
	if r.cur.end > r.cur.start {
		r.cur.first = r.nextFirst
		r.nextFirst = false
		r.p.stages = append(r.p.stages, r.cur)
	}
	r.cur = stage{start: len(r.p.argv), end: len(r.p.argv)}
}

// splitWords tokenises a nested script (an `sh -c` payload, an `env -S`
// string) into the values of its words, ignoring operators.
func splitWords(s string) []string {
	var out []string
	for _, t := range lex(s).tokens {
		if t.op == "" {
			out = append(out, t.word.text)
		}
	}
	return out
}
