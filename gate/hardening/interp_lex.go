package hardening

import (
	"strings"
)

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
	// broken says why the lexer could not read the code to its end;
	// unread is the code from the last token it read.
	broken, unread string
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
	// flip takes the other reading at each guess (relex).
	flip bool
	// mark is where the last token read ends.
	mark int
}

func (l *lexer) emit(t token) {
	l.out.toks = append(l.out.toks, t)
	l.mark = l.i
}

func (l *lexer) punct(s string) { l.emit(token{kind: tkPunct, text: s}) }

func (l *lexer) str(v string, known bool) {
	known = known && !strings.Contains(v, hole)
	l.emit(token{kind: tkString, text: v, known: known})
	l.out.quiet.WriteString(v + "\n")
}

func (l *lexer) command(v string, known bool) {
	l.emit(token{kind: tkCommand, text: v, known: known && !strings.Contains(v, hole)})
}

func (l *lexer) dynamic(why string) { l.emit(token{kind: tkDynamic, text: why}) }

func (l *lexer) newline() {
	if n := len(l.out.toks); n > 0 && l.out.toks[n-1].kind != tkNewline {
		l.emit(token{kind: tkNewline, text: "\n"})
	}
}

func (l *lexer) comment(text string) { l.out.quiet.WriteString(text + "\n") }

func (l *lexer) fail(why string) {
	if l.out.broken == "" {
		l.out.broken, l.out.unread = why, l.src[min(l.mark, len(l.src)):]
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

// codeEnd is the index of the } closing code that starts at i (an
// interpolation's: ${…}, #{…}, {$…}, an f-string's field), past the
// strings, templates and comments in it, which may hold the quote that
// closes the string around it; -1 if none.
func codeEnd(src string, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch c := src[i]; c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		case '\'', '"':
			sub := &lexer{src: src, i: i + 1}
			if _, ok := sub.quoted(c); !ok {
				return -1
			}
			i = sub.i - 1
		case '`':
			sub := &lexer{src: src, i: i + 1}
			if _, _, ok := sub.template(); !ok {
				return -1
			}
			i = sub.i - 1
		case '/':
			if i+1 < len(src) && src[i+1] == '*' {
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return -1
				}
				i += end + 3
			}
		}
	}
	return -1
}

// interpolated reads a string up to the unescaped quote q whose
// interpolations, opened by one of openers, are code that may hold q
// themselves ("#{system("ls")}" in Ruby, "{$a["k"]}" in PHP).
func (l *lexer) interpolated(q byte, openers ...string) (string, bool) {
	start := l.i
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == '\\':
			l.i += 2
		case c == q:
			body := l.src[start:l.i]
			l.i++
			return body, true
		default:
			opened := false
			for _, o := range openers {
				if strings.HasPrefix(l.src[l.i:], o) {
					end := codeEnd(l.src, l.i+len(o))
					if end < 0 {
						return "", false
					}
					l.i, opened = end+1, true
					break
				}
			}
			if !opened {
				l.i++
			}
		}
	}
	return "", false
}

// relex reads src with lex, and when a guess left the code unreadable,
// again with the other reading at each guess: the one of the two
// readings that reads to the end is the code's (still a guess, so the
// scanner's check of the quiet text applies).
func relex(src string, lex func(src string, flip bool) *lexed) *lexed {
	lx := lex(src, false)
	if lx.broken != "" && lx.guessed {
		if alt := lex(src, true); alt.broken == "" {
			return alt
		}
	}
	return lx
}
