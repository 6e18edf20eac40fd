package hardening

import (
	"regexp"
	"strconv"
	"strings"
)

// perl is what the scanner knows of Perl.
var perl = &language{
	name: "perl",
	lex:  lexPerl,
	calls: map[string]callee{
		"system":            {how: argsOrLine},
		"exec":              {how: argsOrLine},
		"CORE::system":      {how: argsOrLine},
		"CORE::exec":        {how: argsOrLine},
		"POSIX::system":     {how: argsOrLine},
		"readpipe":          {how: shellString},
		"CORE::readpipe":    {how: shellString},
		"open":              {how: pipeOpen},
		"CORE::open":        {how: pipeOpen},
		"open2":             {how: argsOrLine, at: 2},
		"open3":             {how: argsOrLine, at: 3},
		"IPC::Open2::open2": {how: argsOrLine, at: 2},
		"IPC::Open3::open3": {how: argsOrLine, at: 3},
		"eval":              {how: evalCode},
		"CORE::eval":        {how: evalCode},
		"do":                {how: loadsFile},
		"require":           {how: loadsFile},
		"syscall":           {how: alwaysDynamic},
		"CORE::syscall":     {how: alwaysDynamic},
	},
	dynamic: map[string]string{
		"IPC::Run":            "loads IPC::Run, whose functions start commands",
		"IPC::Run3":           "loads IPC::Run3, whose functions start commands",
		"IPC::Cmd":            "loads IPC::Cmd, whose functions start commands",
		"IPC::System::Simple": "loads IPC::System::Simple, whose functions start commands",
		"Capture::Tiny":       "loads Capture::Tiny, which runs code it is given",
		"Shell":               "loads Shell, which runs any command as a function",
		"System::Command":     "loads System::Command, whose functions start commands",
		"Proc::Background":    "loads Proc::Background, whose functions start commands",
		"Proc::Simple":        "loads Proc::Simple, whose functions start commands",
		"Expect":              "loads Expect, whose functions start commands",
		"Sys::Cmd":            "loads Sys::Cmd, whose functions start commands",
		"Filter::Simple":      "loads a source filter, which rewrites the code",
		"Filter::Util::Call":  "loads a source filter, which rewrites the code",
	},
	named:     map[string]bool{"system": true, "exec": true, "readpipe": true, "CORE::system": true, "CORE::exec": true, "CORE::GLOBAL::system": true, "open3": true, "open2": true},
	concat:    []string{"."},
	parenless: true,
	ends:      map[string]bool{";": true, "or": true, "and": true, "if": true, "unless": true, "while": true, "until": true, "for": true, "foreach": true, "xor": true, "||": true, "&&": true, "//": true, "?": true, ":": true},
	member:    map[string]bool{"->": true},
	suffixes:  []string{".pl", ".pm"},
	danger:    regexp.MustCompile("system|exec|qx|`|open|readpipe|eval|IPC|pipe|syscall"),
}

// perlNamed are Perl's named operators after which a / starts a pattern.
var perlNamed = map[string]bool{"split": true, "grep": true, "map": true, "join": true, "push": true, "unshift": true, "return": true, "and": true, "or": true, "not": true, "if": true, "unless": true, "while": true, "until": true, "print": true, "say": true, "x": true, "lt": true, "gt": true, "le": true, "ge": true, "eq": true, "ne": true, "cmp": true, "when": true, "xor": true, "for": true, "foreach": true}

var perlOps = []string{"<=>", "**=", "||=", "//=", "&&=", "...", "->", "=>", "==", "!=", "<=", ">=", "=~", "!~", "..", "**", "++", "--", "+=", "-=", ".=", "*=", "x=", "||", "&&", "<<", ">>", "::"}

// lexPerl reads Perl: '…', "…" and `…` with interpolation, q qq qw qx m
// qr s tr y with any delimiters, here-documents, POD, comments; code in
// interpolations (@{[…]}, ${\…}, subscripts), in s///e replacements and
// in (?{…}) patterns is embedded code.
func lexPerl(src string) *lexed { return relex(src, lexPerlAs) }

// lexPerlAs reads Perl, taking the other reading of each guess when flip.
func lexPerlAs(src string, flip bool) *lexed {
	l := &lexer{src: src, flip: flip}
	skipAt, skipTo := -1, 0 // a line's here-document bodies
	lineStart := true
	for l.i < len(src) {
		c := src[l.i]
		if lineStart {
			lineStart = false
			rest := src[l.i:]
			if endMarker(rest, "__END__") || endMarker(rest, "__DATA__") {
				break
			}
			// POD starts where a statement may: a line =word after
			// a complete statement.
			if p := l.prev(); c == '=' && len(rest) > 1 && isIdentStart(rest[1]) && (p.kind == tkNewline || p.kind == tkPunct && (p.text == ";" || p.text == "}" || p.text == "{")) {
				end := strings.Index(rest, "\n=cut")
				if end < 0 {
					break
				}
				l.comment(rest[:end])
				l.i += end + 1
				continue
			}
		}
		switch {
		case c == '\n':
			if l.i == skipAt {
				l.i = skipTo
				skipAt = -1
			} else {
				l.i++
			}
			lineStart = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.i++
		case c == '#':
			end := strings.IndexByte(src[l.i:], '\n')
			if end < 0 {
				end = len(src) - l.i
			}
			l.comment(src[l.i : l.i+end])
			l.i += end
		case c == '$':
			l.perlVariable()
		case c == '@' && l.i+1 < len(src) && (isIdentStart(src[l.i+1]) || src[l.i+1] == ':'):
			l.i++
			l.emit(token{kind: tkIdent, text: "@" + l.perlName()})
		case c == '%' && l.i+1 < len(src) && isIdentStart(src[l.i+1]) && !perlTerm(l.prev()):
			l.i++
			l.emit(token{kind: tkIdent, text: "%" + l.perlName()})
		case c == '\\' && strings.HasPrefix(src[l.i:], `\&`):
			l.punct(`\&`)
			l.i += 2
		case c == '\'':
			l.i++
			body, ok := l.delimited('\'')
			if !ok {
				l.fail("a string that does not end")
				break
			}
			l.str(perlSingle(body, '\''), true)
		case c == '"':
			l.i++
			body, ok := l.delimited('"')
			if !ok {
				l.fail("a string that does not end")
				break
			}
			l.perlDouble(body, false)
		case c == '`':
			l.i++
			body, ok := l.delimited('`')
			if !ok {
				l.fail("a command that does not end")
				break
			}
			l.perlDouble(body, true)
		case c == '<' && strings.HasPrefix(src[l.i:], "<<") && !perlTerm(l.prev()) || c == '<' && perlHeredoc.MatchString(src[l.i:]):
			if m := perlHeredoc.FindStringSubmatch(src[l.i:]); m != nil {
				l.i += len(m[0])
				marker, quote := m[3]+m[4], m[2]
				if quote != "" {
					marker = m[3]
				}
				from := strings.IndexByte(src[l.i:], '\n')
				if skipAt >= 0 {
					from = skipTo
				} else if from >= 0 {
					from += l.i
				}
				if from < 0 {
					l.fail("a here-document without its text")
					break
				}
				body, end, ok := heredocBody(src, from+1, marker, m[1] == "~")
				if !ok {
					l.fail("a here-document that does not end")
					break
				}
				if skipAt < 0 {
					skipAt = from
				}
				skipTo = end
				switch quote {
				case "'":
					l.str(body, true)
				case "`":
					l.perlDouble(body, true)
				default:
					l.perlDouble(body, false)
				}
				break
			}
			l.operator(perlOps)
		case c == '/':
			prev := l.prev()
			divide := perlTerm(prev)
			if prev.kind == tkIdent && !perlNamed[prev.text] && prev.text[0] != '$' && prev.text[0] != '@' || prev.kind == tkPunct && (prev.text == "}" || prev.text == "++" || prev.text == "--") {
				l.out.guessed, divide = true, !l.flip
			}
			switch {
			case divide && (strings.HasPrefix(src[l.i:], "//=") || strings.HasPrefix(src[l.i:], "/=")):
				l.operator([]string{"//=", "/="})
			case divide:
				l.operator([]string{"//"})
			default:
				l.i++
				l.perlQuoteLike("m", '/')
			}
		case c == '?' && l.prev().kind == tkPunct && l.prev().text == "?":
			l.operator(nil)
		case isIdentStart(c):
			name := l.perlName()
			prev := l.prev()
			if perlQuoteOps[name] && !(prev.kind == tkPunct && (prev.text == "->" || prev.text == "-" || prev.text == "{" && l.i < len(src) && src[l.i] == '}')) {
				j := l.i
				for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
					j++
				}
				if j < len(src) && perlDelimiter(src[j], j > l.i) && !strings.HasPrefix(src[j:], "=>") && !(src[j] == '=' && j > l.i) {
					l.i = j + 1
					l.perlQuoteLike(name, src[j])
					continue
				}
			}
			l.emit(token{kind: tkIdent, text: name})
		case '0' <= c && c <= '9':
			l.number()
		default:
			l.operator(perlOps)
		}
	}
	return &l.out
}

var perlHeredoc = regexp.MustCompile("^<<(~?)(?:([\"'`])([^\"'`\\n]*)[\"'`]|()([A-Za-z_][A-Za-z0-9_]*))")

var perlQuoteOps = map[string]bool{"q": true, "qq": true, "qw": true, "qx": true, "m": true, "qr": true, "s": true, "tr": true, "y": true}

// perlDelimiter says c may open a quote-like operator's text; afterSpace
// says blanks came between (then # starts a comment).
func perlDelimiter(c byte, afterSpace bool) bool {
	if isIdentByte(c) || c == ' ' || c == '\t' || c == '\n' || c == ',' || c == ';' || c == ')' || c == '}' || c == ']' || c == '>' {
		return false
	}
	return !(afterSpace && c == '#')
}

// perlTerm says a token ends a term, so a / after it divides.
func perlTerm(t token) bool {
	switch t.kind {
	case tkIdent:
		return t.text[0] == '$' || t.text[0] == '@' || t.text[0] == '%'
	case tkString, tkNumber, tkCommand, tkWords:
		return true
	case tkPunct:
		return t.text == ")" || t.text == "]"
	}
	return false
}

// perlName reads a name with its package (Foo::Bar::baz).
func (l *lexer) perlName() string {
	start := l.i
	for l.i < len(l.src) {
		switch {
		case isIdentByte(l.src[l.i]):
			l.i++
		case strings.HasPrefix(l.src[l.i:], "::"):
			l.i += 2
		case l.src[l.i] == '\'' && l.i > start && l.i+1 < len(l.src) && isIdentStart(l.src[l.i+1]) && (start > 0 && strings.IndexByte("$@%&*", l.src[start-1]) >= 0 || !perlQuoteOps[l.src[start:l.i]]):
			l.i++ // the old package separator: $main'x is $main::x
		default:
			return l.src[start:l.i]
		}
	}
	return l.src[start:l.i]
}

// perlVariable reads a scalar at l.i ($x, $::x, $#x, $1, $&, ${…}).
func (l *lexer) perlVariable() {
	l.i++
	if l.i >= len(l.src) {
		l.punct("$")
		return
	}
	c := l.src[l.i]
	switch {
	case c == '#':
		l.i++
		if l.i < len(l.src) && (isIdentStart(l.src[l.i]) || l.src[l.i] == ':') {
			l.emit(token{kind: tkIdent, text: "$#" + l.perlName()})
		} else {
			l.emit(token{kind: tkIdent, text: "$#"})
		}
	case isIdentByte(c) || c == ':' && strings.HasPrefix(l.src[l.i:], "::"):
		l.emit(token{kind: tkIdent, text: "$" + l.perlName()})
	case c == '^' && l.i+1 < len(l.src) && 'A' <= l.src[l.i+1] && l.src[l.i+1] <= 'Z':
		l.i += 2
		l.emit(token{kind: tkIdent, text: "$^" + l.src[l.i-1:l.i]})
	case c == '{' || c == '$' || c == ' ' || c == '\n':
		l.punct("$")
	default:
		l.i++
		l.emit(token{kind: tkIdent, text: "$" + string(c)})
	}
}

// delimited reads text up to the byte close, with nesting when open is a
// bracket, and l.i after close.
func (l *lexer) delimited(open byte) (string, bool) {
	return l.balanced(open, closing(open))
}

// perlQuoteLike reads a quote-like operator's text after its opening
// delimiter.
func (l *lexer) perlQuoteLike(op string, open byte) {
	first, ok := l.delimited(open)
	if !ok {
		l.fail("a quoted text that does not end")
		return
	}
	var second string
	if op == "s" || op == "tr" || op == "y" {
		next := open
		if closing(open) != open {
			for l.i < len(l.src) && strings.IndexByte(" \t\n\r", l.src[l.i]) >= 0 {
				l.i++
			}
			if l.i >= len(l.src) {
				l.fail("a substitution that does not end")
				return
			}
			next = l.src[l.i]
			l.i++
		}
		second, ok = l.delimited(next)
		if !ok {
			l.fail("a substitution that does not end")
			return
		}
	}
	start := l.i
	for l.i < len(l.src) && 'a' <= l.src[l.i] && l.src[l.i] <= 'z' {
		l.i++
	}
	flags := l.src[start:l.i]
	switch op {
	case "q":
		l.str(perlSingle(first, open), true)
	case "qq":
		l.perlDouble(first, false)
	case "qw":
		l.emit(token{kind: tkWords, words: strings.Fields(perlSingle(first, open))})
	case "qx":
		if open == '\'' {
			l.command(perlSingle(first, open), true)
		} else {
			l.perlDouble(first, true)
		}
	case "m", "qr", "s":
		l.comment(first)
		if open != '\'' {
			l.perlPattern(first)
		}
		if op == "s" {
			switch e := strings.Count(flags, "e"); {
			case e >= 2:
				l.dynamic("evaluates what a substitution makes as code (s///ee)")
			case e == 1:
				l.out.embedded = append(l.out.embedded, second)
			case open != '\'':
				_, _, embedded := perlInterpolate(second)
				l.out.embedded = append(l.out.embedded, embedded...)
				l.comment(second)
			}
		}
		l.emit(token{kind: tkString, text: first})
	default: // tr, y
		l.comment(first + second)
		l.emit(token{kind: tkString, text: first})
	}
}

// perlPattern notes the code a pattern runs: (?{…}), (??{…}) and
// interpolations.
func (l *lexer) perlPattern(p string) {
	for i := 0; i < len(p); i++ {
		if strings.HasPrefix(p[i:], "(?{") || strings.HasPrefix(p[i:], "(??{") || strings.HasPrefix(p[i:], "(*{") {
			j := strings.IndexByte(p[i:], '{') + i + 1
			sub := &lexer{src: p, i: j}
			body, _ := sub.balanced('{', '}')
			l.out.embedded = append(l.out.embedded, body)
			i = sub.i - 1
		}
	}
	_, _, embedded := perlInterpolate(p)
	l.out.embedded = append(l.out.embedded, embedded...)
}

// perlSingle is a single-quoted text's value: \\ and \delimiter lose
// their backslash.
func perlSingle(body string, delim byte) string {
	if !strings.Contains(body, `\`) {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) && (body[i+1] == '\\' || body[i+1] == delim || body[i+1] == closing(delim)) {
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String()
}

// perlDouble emits a double-quoted text (a command when command).
func (l *lexer) perlDouble(body string, command bool) {
	value, known, embedded := perlInterpolate(body)
	l.out.embedded = append(l.out.embedded, embedded...)
	if command {
		l.command(value, known)
	} else {
		l.str(value, known)
	}
}

// perlInterpolate is a double-quoted text's value, whether it is known
// (nothing interpolated), and the code in its interpolations.
func perlInterpolate(s string) (string, bool, []string) {
	var b strings.Builder
	known := true
	var embedded []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			n, ok := perlEscape(s, i, &b)
			known = known && ok
			i += n
		case (c == '$' || c == '@') && i+1 < len(s):
			d := s[i+1]
			if c == '@' && !(isIdentStart(d) || d == '{' || d == '$' || d == ':') {
				b.WriteByte(c)
				continue
			}
			known = false
			j := i + 1
			for j < len(s) && s[j] == '$' {
				j++
			}
			switch {
			case j < len(s) && s[j] == '{':
				end := codeEnd(s, j+1)
				if end < 0 {
					end = len(s) - 1
				}
				embedded = append(embedded, s[j+1:end])
				j = end + 1
			case j < len(s) && s[j] == '#':
				j++
			}
			for j < len(s) && (isIdentByte(s[j]) || s[j] == ':') {
				j++
			}
			for j < len(s) {
				k := j
				if strings.HasPrefix(s[k:], "->") {
					k += 2
				}
				if k >= len(s) || s[k] != '[' && s[k] != '{' {
					break
				}
				sub := &lexer{src: s, i: k + 1}
				body, _ := sub.balanced(s[k], closing(s[k]))
				embedded = append(embedded, body)
				j = sub.i
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), known, embedded
}

// perlEscape decodes the escape whose letter is s[i] into b, and says
// how many more bytes it took; false for one whose value is not
// computed here (\N{…}, case changes).
func perlEscape(s string, i int, b *strings.Builder) (int, bool) {
	c := s[i]
	if ctl, ok := controlEscape(c); ok && c != 'v' {
		b.WriteByte(ctl)
		return 0, true
	}
	switch c {
	case 'e':
		b.WriteByte(0x1b)
	case 'x':
		if i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return 0, false
			}
			n, err := strconv.ParseUint(strings.TrimSpace(s[i+2:i+end]), 16, 32)
			if err != nil {
				return end, false
			}
			b.WriteRune(rune(n))
			return end, true
		}
		v, n := digits(s, i+1, 2, 16)
		b.WriteByte(byte(v))
		return n, true
	case 'c':
		if i+1 < len(s) {
			b.WriteByte(s[i+1] ^ 64)
			return 1, true
		}
	case 'N', 'l', 'u', 'L', 'U', 'Q', 'E', 'F':
		return 0, false
	default:
		if v, n := digits(s, i, 3, 8); n > 0 {
			b.WriteByte(byte(v))
			return n - 1, true
		}
		b.WriteByte(c)
	}
	return 0, true
}

// heredocBody is a here-document's text from the line at from to the
// line holding marker (with leading blanks, for <<~), and the index
// after that line.
func heredocBody(src string, from int, marker string, indented bool) (string, int, bool) {
	var lines []string
	for i := from; i <= len(src); {
		end := strings.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src) - i
		}
		line := src[i : i+end]
		check := line
		if indented {
			check = strings.TrimLeft(line, " \t")
		}
		if strings.TrimRight(check, "\r") == marker {
			return strings.Join(lines, "\n") + "\n", min(i+end, len(src)), true
		}
		lines = append(lines, line)
		i += end + 1
	}
	return "", len(src), false
}

// perlRun reads perl's command line: -e and -E (also -le, -ne, -pe,
// -e'…', several joined by lines), -M and -m modules, a script, - or
// nothing for standard input; -n and -p open the remaining arguments.
func perlRun(args []string) (r run) {
	defer func() {
		for _, code := range r.code {
			if strings.Contains(strings.ReplaceAll(code, "<<>>", ""), "<>") || strings.Contains(code, "<ARGV>") {
				r.magicOpen = true
			}
		}
		// Editing in place, perl opens each file as a file (since 5.28).
		r.magicOpen = r.magicOpen && !r.inPlace
	}()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if r.code == nil && i+1 < len(args) {
				r.file, r.rest = args[i+1], args[i+2:]
				return r
			}
			r.rest = args[i+1:]
			return r
		case a == "-":
			r.stdin, r.rest = true, args[i+1:]
			return r
		case strings.HasPrefix(a, "--"):
			if a == "--help" || a == "--version" {
				r.none = true
				return r
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
		cluster:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'e', 'E':
					code, _, ok := attached(a[j+1:], args[i+1:])
					if !ok {
						r.openValue = true
						return r
					}
					if a[j+1:] == "" {
						i++
					}
					r.code, r.flag = append(r.code, code), "-"+string(a[j])
					break cluster
				case 'n', 'p':
					r.magicOpen = true
				case 'F':
					r.magicOpen = true
					break cluster
				case 'l':
					for j+1 < len(a) && '0' <= a[j+1] && a[j+1] <= '7' {
						j++
					}
				case '0':
					for j+1 < len(a) && (isHex(a[j+1]) || a[j+1] == 'x') {
						j++
					}
				case 'M', 'm':
					// perl runs `use MODULE …;`: what follows -M is code.
					r.pre = append(r.pre, "use "+a[j+1:]+";")
					mod := a[j+1:]
					mod = strings.TrimPrefix(mod, "-")
					if k := strings.IndexAny(mod, "= "); k >= 0 {
						mod = mod[:k]
					}
					r.modules = append(r.modules, mod)
					break cluster
				case 'I':
					if j+1 == len(a) {
						i++
					}
					break cluster
				case 'd':
					if a[j+1:] == "" || a[j+1] == 't' {
						r.debugger = true
					}
					break cluster
				case 'i':
					r.inPlace = true
					break cluster
				case 'C', 'D', 'x':
					break cluster
				case 'v', 'h', 'V':
					r.none = true
					return r
				}
			}
		default:
			return r.operand(args, i)
		}
	}
	return r.ended()
}

// perlMagicOpen inspects the file names perl -n and -p (and <>) open
// with the two-argument open: a name starting or ending with | runs as a
// shell command. A name the line builds when it runs is held unless its
// form cannot begin or end with | (find . -name '*.html').
func (in *inspector) perlMagicOpen(c *command, rest []string) {
	for j, a := range rest {
		if w := len(c.words) - len(rest) + j; w >= c.open && w-c.open < len(c.patterns) {
			if c.patterns[w-c.open].mayBeginOrEnd("|") {
				in.unseeable("`perl -n` opens a file named when the line runs (" + shorten(c.words[w]) + "), and a name starting or ending in | runs as a command")
			}
			continue
		}
		t := strings.TrimSpace(a)
		switch {
		case strings.HasPrefix(t, "|"):
			in.line(strings.TrimSpace(t[1:]), c.depth+1, "`perl -n` opening `"+shorten(a)+"`")
		case strings.HasSuffix(t, "|"):
			in.line(strings.TrimSpace(t[:len(t)-1]), c.depth+1, "`perl -n` opening `"+shorten(a)+"`")
		}
	}
}

// endMarker says rest starts with the word marker (__END__), not a
// longer name.
func endMarker(rest, marker string) bool {
	return strings.HasPrefix(rest, marker) && (len(rest) == len(marker) || !isIdentByte(rest[len(marker)]))
}
