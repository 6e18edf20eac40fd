package shellsafety

import "strings"

// word is one shell word as the program would receive it.
type word struct {
	text string // quotes and backslashes removed, nothing expanded
	// expands: a `$` or backtick outside single quotes, so the shell
	// rewrites the word (variables, command substitution) before use.
	expands bool
	// globs: an unquoted *, ?, [ or {, so the shell may turn the word into
	// other words (file names, brace alternatives).
	globs bool
}

// token is a word or, when op is set, an operator outside quotes.
type token struct {
	op   string
	word word
}

// Operators the lexer emits. Redirections of every spelling collapse to
// opRedirectOut/opRedirectIn: the classifiers only need to know one is there.
const (
	opAnd         = "&&"
	opOr          = "||"
	opPipe        = "|"
	opPipeAll     = "|&"
	opBackground  = "&"
	opSemicolon   = ";"
	opNewline     = "\n"
	opOpenParen   = "("
	opCloseParen  = ")"
	opRedirectOut = ">"
	opRedirectIn  = "<"
)

// tokenSink receives a command line's tokens in order as the lexer finds
// them, so a reader can build its own form without a token list between.
type tokenSink interface {
	word(w word)
	operator(op string)
}

// lexed is a tokenised command line.
type lexed struct {
	tokens []token
	// complete is false when a quote was still open at the end; the tokens
	// are then a best effort.
	complete bool
}

func (lx *lexed) word(w word)        { lx.tokens = append(lx.tokens, token{word: w}) }
func (lx *lexed) operator(op string) { lx.tokens = append(lx.tokens, token{op: op}) }

// lex splits a command line into words and operators the way a POSIX shell
// does, without expanding anything. It never fails: an open quote runs to
// the end of the text and clears complete.
func lex(s string) lexed {
	// Most words are separated by one space: size the token list once.
	lx := lexed{tokens: make([]token, 0, strings.Count(s, " ")+1)}
	lx.complete = lexTo(s, &lx)
	return lx
}

// lexTo is lex handing each token to sink; it reports complete.
func lexTo(s string, sink tokenSink) (complete bool) {
	l := lexer{src: s, sink: sink, complete: true}
	l.run()
	return l.complete
}

type lexer struct {
	src      string
	pos      int
	sink     tokenSink
	complete bool
	inWord   bool
	// start is where the current word began. Until a quote or backslash
	// changes its bytes (verbatim), the word is src[start:pos] and costs
	// no copy; after that it is built in cur, reused across words.
	start    int
	verbatim bool
	cur      []byte
	current  word
}

func (l *lexer) run() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t':
			l.endWord()
			l.pos++
		case c == '\'':
			l.singleQuoted()
		case c == '"':
			l.doubleQuoted()
		case c == '\\':
			l.rewrite()
			if l.pos+1 < len(l.src) {
				l.cur = append(l.cur, l.src[l.pos+1])
				l.pos += 2
			} else {
				l.cur = append(l.cur, c)
				l.pos++
			}
		case isOperatorByte(c):
			l.endWord()
			l.operator()
		default:
			l.startWord()
			switch c {
			case '$', '`':
				l.current.expands = true
			case '*', '?', '[', '{':
				l.current.globs = true
			}
			if !l.verbatim {
				l.cur = append(l.cur, c)
			}
			l.pos++
		}
	}
	l.endWord()
}

// isOperatorByte: c starts an operator outside quotes. A switch, not a
// search of a string, because the lexer asks it of every byte.
func isOperatorByte(c byte) bool {
	switch c {
	case ';', '&', '|', '<', '>', '(', ')', '\n', '\r':
		return true
	}
	return false
}

func (l *lexer) singleQuoted() {
	l.rewrite()
	end := strings.IndexByte(l.src[l.pos+1:], '\'')
	if end < 0 {
		l.cur = append(l.cur, l.src[l.pos+1:]...)
		l.pos = len(l.src)
		l.complete = false
		return
	}
	l.cur = append(l.cur, l.src[l.pos+1:l.pos+1+end]...)
	l.pos += end + 2
}

func (l *lexer) doubleQuoted() {
	l.rewrite()
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '"':
			l.pos++
			return
		case c == '\\' && l.pos+1 < len(l.src) && strings.IndexByte("$`\"\\\n", l.src[l.pos+1]) >= 0:
			l.cur = append(l.cur, l.src[l.pos+1])
			l.pos += 2
			continue
		case c == '$' || c == '`':
			l.current.expands = true
		}
		l.cur = append(l.cur, c)
		l.pos++
	}
	l.complete = false
}

func (l *lexer) operator() {
	rest := l.src[l.pos:]
	op := rest[:1]
	switch {
	case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "||"), strings.HasPrefix(rest, "|&"):
		op = rest[:2]
	case strings.HasPrefix(rest, "&>"):
		op = opRedirectOut
		l.pos++
	case op == "\r":
		op = opNewline
	}
	l.pos += len(op)
	if op == opRedirectOut || op == opRedirectIn {
		// Swallow the rest of the redirection operator (>>, >&, >|, <<<, <>).
		for l.pos < len(l.src) && strings.IndexByte("<>&|", l.src[l.pos]) >= 0 {
			l.pos++
		}
	}
	l.sink.operator(op)
}

// startWord notes where a word begins, if one is not under way.
func (l *lexer) startWord() {
	if !l.inWord {
		l.inWord, l.start, l.verbatim = true, l.pos, true
	}
}

// rewrite starts or continues a word whose bytes differ from the source
// (a quote or backslash at pos), moving what it holds so far into cur.
func (l *lexer) rewrite() {
	l.startWord()
	if l.verbatim {
		l.cur = append(l.cur[:0], l.src[l.start:l.pos]...)
		l.verbatim = false
	}
}

func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	if l.verbatim {
		l.current.text = l.src[l.start:l.pos]
	} else {
		l.current.text = string(l.cur)
	}
	l.sink.word(l.current)
	l.cur = l.cur[:0]
	l.current = word{}
	l.inWord = false
}
