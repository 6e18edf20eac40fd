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

// lexed is a tokenised command line.
type lexed struct {
	tokens []token
	// complete is false when a quote was still open at the end; the tokens
	// are then a best effort.
	complete bool
}

// lex splits a command line into words and operators the way a POSIX shell
// does, without expanding anything. It never fails: an open quote runs to
// the end of the text and clears complete.
func lex(s string) lexed {
	l := lexer{src: s, out: lexed{complete: true}}
	l.run()
	return l.out
}

type lexer struct {
	src     string
	pos     int
	out     lexed
	cur     strings.Builder
	inWord  bool
	current word
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
			l.inWord = true
			if l.pos+1 < len(l.src) {
				l.cur.WriteByte(l.src[l.pos+1])
				l.pos += 2
			} else {
				l.cur.WriteByte(c)
				l.pos++
			}
		case strings.IndexByte(";&|<>()\n\r", c) >= 0:
			l.endWord()
			l.operator()
		default:
			l.inWord = true
			switch c {
			case '$', '`':
				l.current.expands = true
			case '*', '?', '[', '{':
				l.current.globs = true
			}
			l.cur.WriteByte(c)
			l.pos++
		}
	}
	l.endWord()
}

func (l *lexer) singleQuoted() {
	l.inWord = true
	end := strings.IndexByte(l.src[l.pos+1:], '\'')
	if end < 0 {
		l.cur.WriteString(l.src[l.pos+1:])
		l.pos = len(l.src)
		l.out.complete = false
		return
	}
	l.cur.WriteString(l.src[l.pos+1 : l.pos+1+end])
	l.pos += end + 2
}

func (l *lexer) doubleQuoted() {
	l.inWord = true
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '"':
			l.pos++
			return
		case c == '\\' && l.pos+1 < len(l.src) && strings.IndexByte("$`\"\\\n", l.src[l.pos+1]) >= 0:
			l.cur.WriteByte(l.src[l.pos+1])
			l.pos += 2
			continue
		case c == '$' || c == '`':
			l.current.expands = true
		}
		l.cur.WriteByte(c)
		l.pos++
	}
	l.out.complete = false
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
	l.out.tokens = append(l.out.tokens, token{op: op})
}

func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	l.current.text = l.cur.String()
	l.out.tokens = append(l.out.tokens, token{word: l.current})
	l.cur.Reset()
	l.current = word{}
	l.inWord = false
}
