package hardening

import (
	"regexp"
	"strings"
)

// ruby is what the scanner knows of Ruby.
var ruby = &language{
	name: "ruby",
	lex:  lexRuby,
	calls: func() map[string]callee {
		m := map[string]callee{
			"Kernel.`":             {how: shellString},
			"IO.popen":             {how: lineOrList},
			"File.popen":           {how: lineOrList},
			"open":                 {how: pipeOpen},
			"Kernel.open":          {how: pipeOpen},
			"URI.open":             {how: pipeOpen},
			"IO.read":              {how: pipeOpen},
			"IO.readlines":         {how: pipeOpen},
			"IO.foreach":           {how: pipeOpen},
			"IO.write":             {how: pipeOpen},
			"IO.binread":           {how: pipeOpen},
			"IO.binwrite":          {how: pipeOpen},
			"Open3.pipeline":       {how: eachLine},
			"Open3.pipeline_r":     {how: eachLine},
			"Open3.pipeline_w":     {how: eachLine},
			"Open3.pipeline_rw":    {how: eachLine},
			"Open3.pipeline_start": {how: eachLine},
			"eval":                 {how: evalCode},
			"Kernel.eval":          {how: evalCode},
			"binding.eval":         {how: evalCode},
			"instance_eval":        {how: evalCode},
			"class_eval":           {how: evalCode},
			"module_eval":          {how: evalCode},
			"send":                 {how: attribute},
			"public_send":          {how: attribute},
			"__send__":             {how: attribute},
			"method":               {how: attribute},
			"syscall":              {how: alwaysDynamic},
			"Kernel.syscall":       {how: alwaysDynamic},
		}
		for _, f := range []string{"system", "exec", "spawn", "sh", "Kernel.system", "Kernel.exec", "Kernel.spawn", "Process.spawn", "Process.exec", "PTY.spawn", "PTY.getpty", "Open3.popen3", "Open3.popen2", "Open3.popen2e", "Open3.capture2", "Open3.capture2e", "Open3.capture3"} {
			m[f] = callee{how: argsOrLine}
		}
		return m
	}(),
	methods: map[string]callee{
		"send": {how: attribute}, "public_send": {how: attribute}, "__send__": {how: attribute}, "method": {how: attribute}, "instance_method": {how: attribute},
		"instance_eval": {how: evalCode}, "class_eval": {how: evalCode}, "module_eval": {how: evalCode}, "instance_exec": {how: evalCode},
	},
	modules: map[string]bool{"Open3": true, "PTY": true, "Kernel": true, "Process": true},
	strict:  map[string]bool{"Open3": true},
	loaders: map[string]bool{"require": true},
	dynamic: map[string]string{
		"Fiddle":        "calls native code through Fiddle",
		"FFI":           "calls native code through FFI",
		"RubyVM":        "loads code through RubyVM",
		".const_get":    "looks up a constant by name",
		"ObjectSpace":   "reaches objects through ObjectSpace",
		"define_method": "defines methods from values",
	},
	named:     map[string]bool{"system": true, "exec": true, "spawn": true, "popen": true, "`": true, "syscall": true, "popen3": true, "capture2": true, "capture2e": true, "capture3": true},
	concat:    []string{"+", "<<"},
	adjacent:  true,
	parenless: true,
	ends:      map[string]bool{"\n": true, ";": true, "if": true, "unless": true, "while": true, "until": true, "and": true, "or": true, "do": true, "then": true, "end": true, "||": true, "&&": true, "rescue": true},
	member:    map[string]bool{".": true, "&.": true, "::": true},
	suffixes:  []string{".rb"},
	danger:    regexp.MustCompile("system|exec|spawn|popen|`|%x|Open3|PTY|eval|send|syscall|open"),
}

var rubyOps = []string{"**=", "<=>", "===", "...", "&&=", "||=", "<<=", ">>=", "==", "!=", ">=", "<=", "&&", "||", "<<", ">>", "**", "=~", "!~", "..", "::", "->", "=>", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "&."}

// rubyContinues are tokens after which a line goes on.
var rubyContinues = map[string]bool{",": true, "(": true, "[": true, "{": true, "|": true, "&&": true, "||": true, "=": true, ".": true, "&.": true, "+": true, "-": true, "*": true, "/": true, "\\": true, "::": true, "=>": true, "<<": true}

var rubyKeywords = map[string]bool{"if": true, "unless": true, "while": true, "until": true, "and": true, "or": true, "not": true, "return": true, "when": true, "puts": true, "print": true, "p": true, "case": true, "in": true, "then": true, "do": true, "else": true, "elsif": true}

var rubyHeredoc = regexp.MustCompile("^<<([~-]?)(?:([\"'`])([^\"'`\\n]*)[\"'`]|([A-Za-z_][A-Za-z0-9_]*))")

// lexRuby reads Ruby: '…', "…" with #{…} (code), `…` and %x(…) commands,
// %q %Q %w %W %i %r literals, here-documents (<<~X, <<-X, <<'X', <<`X`),
// patterns, symbols, ?x characters, comments and =begin blocks.
func lexRuby(src string) *lexed { return relex(src, lexRubyAs) }

// lexRubyAs reads Ruby, taking the other reading of each guess when flip.
func lexRubyAs(src string, flip bool) *lexed {
	l := &lexer{src: src, flip: flip}
	skipAt, skipTo := -1, 0
	lineStart := true
	for l.i < len(src) {
		c := src[l.i]
		if lineStart {
			lineStart = false
			rest := src[l.i:]
			if strings.HasPrefix(rest, "__END__\n") || rest == "__END__" || strings.HasPrefix(rest, "__END__\r\n") {
				break
			}
			if strings.HasPrefix(rest, "=begin") {
				end := strings.Index(rest, "\n=end")
				if end < 0 {
					break
				}
				l.comment(rest[:end])
				l.i += end + 5
				continue
			}
		}
		prev := l.prev()
		term := rubyTerm(prev)
		spaced := l.i > 0 && (src[l.i-1] == ' ' || src[l.i-1] == '\t')
		// After a name and a blank, with no blank after: a literal, as
		// Ruby reads `puts %w(a)` and `p /x/`, with a warning.
		ambiguous := prev.kind == tkIdent && !rubyKeywords[prev.text] && spaced && l.i+1 < len(src) && src[l.i+1] != ' ' && src[l.i+1] != '='
		if ambiguous && (c == '/' || c == '%' || c == '<') {
			l.out.guessed = true
		}
		argStart := ambiguous && !l.flip
		switch {
		case c == '\n':
			if l.i == skipAt {
				l.i = skipTo
				skipAt = -1
			} else {
				l.i++
			}
			lineStart = true
			if !(prev.kind == tkPunct && rubyContinues[prev.text]) && !rubyLeadingDot(src[l.i:]) {
				l.newline()
			}
		case c == '\\' && l.i+1 < len(src) && src[l.i+1] == '\n':
			l.i += 2
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.i++
		case c == '#':
			end := strings.IndexByte(src[l.i:], '\n')
			if end < 0 {
				end = len(src) - l.i
			}
			l.comment(src[l.i : l.i+end])
			l.i += end
		case c == '\'':
			l.i++
			body, ok := l.quoted('\'')
			if !ok {
				l.fail("a string that does not end")
				break
			}
			l.str(perlSingle(body, '\''), true)
		case c == '"':
			l.i++
			body, ok := l.interpolated('"', "#{")
			if !ok {
				l.fail("a string that does not end")
				break
			}
			l.rubyDouble(body, false)
		case c == '`':
			l.i++
			if prev.kind == tkPunct && (prev.text == "." || prev.text == "::" || prev.text == "&.") || prev.kind == tkIdent && prev.text == "def" {
				l.emit(token{kind: tkIdent, text: "`"})
				break
			}
			body, ok := l.interpolated('`', "#{")
			if !ok {
				l.fail("a command that does not end")
				break
			}
			l.rubyDouble(body, true)
		case c == ':' && l.i+1 < len(src) && (isIdentStart(src[l.i+1]) || src[l.i+1] == '`' || src[l.i+1] == '"') && !(l.i > 0 && (isIdentByte(src[l.i-1]) || src[l.i-1] == ':')):
			l.i++
			switch src[l.i] {
			case '`':
				l.i++
				l.emit(token{kind: tkIdent, text: ":`"})
			case '"':
				l.i++
				body, ok := l.quoted('"')
				if !ok {
					l.fail("a symbol that does not end")
					break
				}
				v, known, embedded := rubyInterpolate(body)
				l.out.embedded = append(l.out.embedded, embedded...)
				if known {
					l.emit(token{kind: tkIdent, text: ":" + v})
				} else {
					l.str(v, false)
				}
			default:
				l.emit(token{kind: tkIdent, text: ":" + l.ident()})
			}
		case c == '?' && l.i+1 < len(src) && !term && src[l.i+1] != ' ' && src[l.i+1] != '\n' && src[l.i+1] != '\t':
			// ?x is the string "x" when no name character follows.
			n := 1
			if src[l.i+1] == '\\' && l.i+2 < len(src) {
				n = 2
			}
			if l.i+1+n < len(src) && isIdentByte(src[l.i+1+n]) && isIdentByte(src[l.i+1]) {
				l.operator(nil)
				break
			}
			l.str(src[l.i+1:l.i+1+n], n == 1)
			l.i += 1 + n
		case c == '%' && (!term || argStart) && l.i+1 < len(src):
			if argStart {
				l.out.guessed = true
			}
			kind := byte('Q')
			j := l.i + 1
			if strings.IndexByte("qQwWiIxrs", src[j]) >= 0 && j+1 < len(src) && !isIdentByte(src[j+1]) && src[j+1] != ' ' {
				kind = src[j]
				j++
			}
			if j >= len(src) || isIdentByte(src[j]) || src[j] == ' ' || src[j] == '=' && term {
				l.operator(rubyOps)
				break
			}
			l.i = j + 1
			body, ok := l.delimited(src[j])
			if !ok {
				l.fail("a % literal that does not end")
				break
			}
			l.rubyPercent(kind, body, src[j])
		case c == '/' && (!term || argStart):
			if argStart || prev.kind == tkPunct && prev.text == "}" {
				l.out.guessed = true
			}
			l.i++
			body, ok := l.quoted('/')
			if !ok {
				l.fail("a pattern that does not end")
				break
			}
			for l.i < len(src) && isIdentByte(src[l.i]) {
				l.i++
			}
			l.comment(body)
			_, _, embedded := rubyInterpolate(body)
			l.out.embedded = append(l.out.embedded, embedded...)
			l.emit(token{kind: tkString, text: body})
		case c == '<' && strings.HasPrefix(src[l.i:], "<<") && (!term || argStart) && rubyHeredoc.MatchString(src[l.i:]):
			m := rubyHeredoc.FindStringSubmatch(src[l.i:])
			l.i += len(m[0])
			marker := m[3] + m[4]
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
			body, end, ok := heredocBody(src, from+1, marker, m[1] != "")
			if !ok {
				l.fail("a here-document that does not end")
				break
			}
			if skipAt < 0 {
				skipAt = from
			}
			skipTo = end
			switch m[2] {
			case "'":
				l.str(body, true)
			case "`":
				l.rubyDouble(body, true)
			default:
				l.rubyDouble(body, false)
			}
		case c == '$' && l.i+1 < len(src) && !isIdentStart(src[l.i+1]):
			l.emit(token{kind: tkIdent, text: src[l.i : l.i+2]})
			l.i += 2
		case c == '$' || c == '@':
			start := l.i
			for l.i < len(src) && (src[l.i] == '$' || src[l.i] == '@') {
				l.i++
			}
			l.ident()
			l.emit(token{kind: tkIdent, text: src[start:l.i]})
		case isIdentStart(c):
			name := l.ident()
			if l.i < len(src) && (src[l.i] == '!' || src[l.i] == '?') && (l.i+1 >= len(src) || src[l.i+1] != '=') {
				name += src[l.i : l.i+1]
				l.i++
			}
			l.emit(token{kind: tkIdent, text: name})
		case '0' <= c && c <= '9':
			l.number()
		default:
			l.operator(rubyOps)
		}
	}
	return &l.out
}

// rubyLeadingDot says the next line goes on with a method call (.x).
func rubyLeadingDot(rest string) bool {
	t := strings.TrimLeft(rest, " \t")
	return strings.HasPrefix(t, ".") && !strings.HasPrefix(t, "..") || strings.HasPrefix(t, "&.")
}

// rubyTerm says a token ends a term, so / and % after it are operators.
func rubyTerm(t token) bool {
	switch t.kind {
	case tkIdent:
		return !rubyKeywords[t.text]
	case tkString, tkNumber, tkCommand, tkWords:
		return true
	case tkPunct:
		return t.text == ")" || t.text == "]" || t.text == "}"
	}
	return false
}

// rubyDouble emits a double-quoted text (a command when command).
func (l *lexer) rubyDouble(body string, command bool) {
	v, known, embedded := rubyInterpolate(body)
	l.out.embedded = append(l.out.embedded, embedded...)
	if command {
		l.command(v, known)
	} else {
		l.str(v, known)
	}
}

// rubyPercent emits a % literal of this kind.
func (l *lexer) rubyPercent(kind byte, body string, open byte) {
	switch kind {
	case 'q':
		l.str(perlSingle(body, open), true)
	case 'w', 'i':
		l.emit(token{kind: tkWords, words: strings.Fields(perlSingle(body, open))})
	case 'W', 'I':
		v, known, embedded := rubyInterpolate(body)
		l.out.embedded = append(l.out.embedded, embedded...)
		if known {
			l.emit(token{kind: tkWords, words: strings.Fields(v)})
		} else {
			l.str(v, false)
		}
	case 'x':
		l.rubyDouble(body, true)
	case 'r':
		l.comment(body)
		_, _, embedded := rubyInterpolate(body)
		l.out.embedded = append(l.out.embedded, embedded...)
		l.emit(token{kind: tkString, text: body})
	case 's':
		l.emit(token{kind: tkIdent, text: ":" + body})
	default:
		l.rubyDouble(body, false)
	}
}

// rubyInterpolate is a double-quoted text's value, whether it is known,
// and the code of its #{…}.
func rubyInterpolate(s string) (string, bool, []string) {
	var b strings.Builder
	known := true
	var embedded []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == 'u' || s[i] == 'M' || s[i] == 'C' {
				known = false
				continue
			}
			n, ok := perlEscape(s, i, &b)
			known = known && ok
			i += n
		case c == '#' && i+1 < len(s) && s[i+1] == '{':
			known = false
			end := codeEnd(s, i+2)
			if end < 0 {
				end = len(s)
			}
			embedded = append(embedded, s[i+2:end])
			i = end
		case c == '#' && i+1 < len(s) && (s[i+1] == '@' || s[i+1] == '$'):
			known = false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), known, embedded
}

// rubyRun reads ruby's command line: -e (several joined by lines, also
// -ne, -pe, -e'…'), -r libraries, a script, - or nothing for standard
// input.
func rubyRun(args []string) run {
	var r run
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if r.code == nil && i+1 < len(args) {
				r.file, r.rest = args[i+1], args[i+2:]
			}
			return r
		case a == "-":
			r.stdin, r.rest = true, args[i+1:]
			return r
		case a == "--version" || a == "--help" || a == "-v" || a == "-h" || a == "--copyright":
			r.none = true
			return r
		case strings.HasPrefix(a, "--"):
			if (a == "--encoding" || a == "--external-encoding" || a == "--internal-encoding" || a == "--dump") && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
		cluster:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'e':
					code, _, ok := attached(a[j+1:], args[i+1:])
					if !ok {
						r.openValue = true
						return r
					}
					if a[j+1:] == "" {
						i++
					}
					r.code, r.flag = append(r.code, code), "-e"
					break cluster
				case 'r':
					mod, _, ok := attached(a[j+1:], args[i+1:])
					if !ok {
						r.openValue = true
						return r
					}
					if a[j+1:] == "" {
						i++
					}
					r.modules = append(r.modules, mod)
					break cluster
				case 'I', 'C', 'E':
					if j+1 == len(a) {
						i++
					}
					break cluster
				case 'i', 'x', 'F', 'K', 'T', 'W', '0':
					break cluster
				case 'c', 'y':
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
