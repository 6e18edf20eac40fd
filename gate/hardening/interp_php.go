package hardening

import (
	"regexp"
	"strings"
)

// php is what the scanner knows of PHP code given to php -r (no
// <?php tags); phpFile is PHP in a file or on standard input, where
// code is what stands between <?php and ?>.
var php = &language{
	name: "php",
	lex:  func(src string) *lexed { return lexPHP(src, false) },
	calls: map[string]callee{
		"system":               {how: shellString},
		"exec":                 {how: shellString},
		"shell_exec":           {how: shellString},
		"passthru":             {how: shellString},
		"popen":                {how: shellString},
		"expect_popen":         {how: shellString},
		"proc_open":            {how: lineOrList},
		"pcntl_exec":           {how: programArgs},
		"eval":                 {how: evalCode},
		"assert":               {how: evalCode},
		"create_function":      {how: evalCode, at: 1},
		"call_user_func":       {how: attribute},
		"call_user_func_array": {how: attribute},
		"include":              {how: loadsFile},
		"include_once":         {how: loadsFile},
		"require":              {how: loadsFile},
		"require_once":         {how: loadsFile},
	},
	dynamic: map[string]string{
		"ffi":                "calls native code through FFI",
		"reflectionfunction": "calls a function through reflection",
		"dl":                 "loads native code with dl()",
		"mail":               "hands mail() options to sendmail",
		"putenv":             "sets the environment of the commands it starts",
	},
	concat:    []string{"."},
	parenless: true,
	ends:      map[string]bool{";": true},
	member:    map[string]bool{"->": true, "::": true, "?->": true},
	fold:      true,
	danger:    regexp.MustCompile("(?i)system|exec|passthru|popen|proc_open|eval|assert|`"),
}

var phpFile = func() *language {
	l := *php
	l.lex = func(src string) *lexed { return lexPHP(src, true) }
	return &l
}()

// phpFunctions are PHP's process-starting functions, held when the code
// names one in a string (a callable: array_map('system', …)).
var phpFunctions = map[string]bool{"system": true, "exec": true, "shell_exec": true, "passthru": true, "popen": true, "proc_open": true, "pcntl_exec": true, "expect_popen": true, "eval": true, "assert": true, "create_function": true}

var phpOps = []string{"<=>", "===", "!==", "**=", "...", "??=", "?->", "<<=", ">>=", "==", "!=", "<>", "<=", ">=", "&&", "||", "??", "->", "=>", "::", "++", "--", "+=", "-=", "*=", "/=", ".=", "%=", "&=", "|=", "^=", "**", "<<", ">>"}

var phpHeredoc = regexp.MustCompile(`^<<<[ \t]*(?:"([A-Za-z_][A-Za-z0-9_]*)"|'([A-Za-z_][A-Za-z0-9_]*)'|([A-Za-z_][A-Za-z0-9_]*))\r?\n`)

// lexPHP reads PHP: '…', "…" with interpolation ({$…} and ${…} are code),
// heredocs and nowdocs, backquotes (commands), comments; in a template,
// only what stands between <?php (or <?=, <?) and ?>. A call of a
// string, a variable or an expression (("sys"."tem")(…), $f(…)) is
// unseeable, and so is a string naming a process-starting function.
func lexPHP(src string, template bool) *lexed {
	l := &lexer{src: src}
	html := template
	for l.i < len(src) {
		if html {
			open := strings.Index(src[l.i:], "<?")
			if open < 0 {
				break
			}
			l.i += open + 2
			if strings.HasPrefix(strings.ToLower(src[l.i:]), "php") {
				l.i += 3
			} else if strings.HasPrefix(src[l.i:], "=") {
				l.i++
			}
			html = false
			continue
		}
		c := src[l.i]
		switch {
		case strings.HasPrefix(src[l.i:], "?>"):
			l.i += 2
			l.punct(";")
			html = true
		case c == '\n':
			l.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.i++
		case strings.HasPrefix(src[l.i:], "#["):
			l.i += 2
			l.balanced('[', ']')
		case c == '#' || strings.HasPrefix(src[l.i:], "//"):
			end := len(src) - l.i
			if nl := strings.IndexByte(src[l.i:], '\n'); nl >= 0 {
				end = nl
			}
			if tag := strings.Index(src[l.i:l.i+end], "?>"); tag >= 0 {
				end = tag
			}
			l.comment(src[l.i : l.i+end])
			l.i += end
		case strings.HasPrefix(src[l.i:], "/*"):
			end := strings.Index(src[l.i+2:], "*/")
			if end < 0 {
				l.fail("a comment that does not end")
				break
			}
			l.comment(src[l.i : l.i+2+end])
			l.i += end + 4
		case c == '\'':
			l.i++
			body, ok := l.quoted('\'')
			if !ok {
				l.fail("a string that does not end")
				break
			}
			l.phpString(perlSingle(body, '\''), true)
		case c == '"':
			l.i++
			body, ok := l.interpolated('"', "{$", "${")
			if !ok {
				l.fail("a string that does not end")
				break
			}
			l.phpDouble(body, false)
		case c == '`':
			l.i++
			body, ok := l.quoted('`')
			if !ok {
				l.fail("a command that does not end")
				break
			}
			l.phpDouble(body, true)
		case c == '<' && phpHeredoc.MatchString(src[l.i:]):
			m := phpHeredoc.FindStringSubmatch(src[l.i:])
			l.i += len(m[0])
			marker := m[1] + m[2] + m[3]
			end := regexp.MustCompile(`(?m)^[ \t]*` + marker + `\b`).FindStringIndex(src[l.i:])
			if end == nil {
				l.fail("a heredoc that does not end")
				break
			}
			body := src[l.i : l.i+end[0]]
			l.i += end[1]
			if m[2] != "" {
				l.phpString(body, true)
			} else {
				l.phpDouble(body, false)
			}
		case c == '$' && l.i+1 < len(src) && (isIdentStart(src[l.i+1]) || src[l.i+1] == '$' || src[l.i+1] == '{'):
			start := l.i
			for l.i < len(src) && src[l.i] == '$' {
				l.i++
			}
			if l.i < len(src) && src[l.i] == '{' {
				l.dynamic("reads a variable whose name is built when it runs")
				l.punct("$")
				break
			}
			l.ident()
			l.emit(token{kind: tkIdent, text: src[start:l.i]})
			if phpCalled(src, l.i) {
				l.dynamic("calls a function named by a variable (" + src[start:l.i] + "(…))")
			}
		case isIdentStart(c):
			l.emit(token{kind: tkIdent, text: l.ident()})
		case '0' <= c && c <= '9':
			l.number()
		case c == ')' && phpCalled(src, l.i+1):
			l.dynamic("calls the value of an expression as a function")
			l.operator(nil)
		default:
			l.operator(phpOps)
		}
	}
	return &l.out
}

// phpCalled says the code at i calls what came before it.
func phpCalled(src string, i int) bool {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i < len(src) && src[i] == '('
}

// phpString emits a string, unseeable when it names a process-starting
// function or is called.
func (l *lexer) phpString(v string, known bool) {
	name := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(v), `\`))
	if phpFunctions[name] {
		l.dynamic("names the function " + name + " in a string, which PHP can call")
	}
	if phpCalled(l.src, l.i) {
		l.dynamic("calls a function named by a string")
	}
	l.str(v, known)
}

// phpDouble emits a double-quoted text (a command when command).
func (l *lexer) phpDouble(body string, command bool) {
	v, known, embedded := phpInterpolate(body)
	l.out.embedded = append(l.out.embedded, embedded...)
	if command {
		l.command(v, known)
	} else {
		l.phpString(v, known)
	}
}

// phpInterpolate is a double-quoted text's value, whether it is known,
// and the code of its {$…} and ${…}.
func phpInterpolate(s string) (string, bool, []string) {
	var b strings.Builder
	known := true
	var embedded []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if strings.IndexByte(`nrtvef\$"01234567xu`, s[i]) < 0 {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			if s[i] == 'u' {
				known = false
				continue
			}
			n, ok := perlEscape(s, i, &b)
			known = known && ok
			i += n
		case (c == '{' && i+1 < len(s) && s[i+1] == '$') || (c == '$' && i+1 < len(s) && s[i+1] == '{'):
			known = false
			end := codeEnd(s, i+2)
			if end < 0 {
				end = len(s)
			}
			body := s[i+2 : end]
			if c == '{' {
				body = "$" + body
			}
			embedded = append(embedded, body)
			i = end
		case c == '$' && i+1 < len(s) && isIdentStart(s[i+1]):
			known = false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), known, embedded
}

// phpRun reads php's command line: -r CODE, -B/-R/-E per-line code, a
// script (-f FILE or the first argument), or standard input.
func phpRun(args []string) run {
	r := run{lang: phpFile}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			r.rest = args[i+1:]
			i = len(args)
		case len(a) >= 2 && a[0] == '-' && strings.IndexByte("rBRE", a[1]) >= 0:
			code, _, ok := attached(a[2:], args[i+1:])
			if !ok {
				r.openValue = true
				return r
			}
			if a[2:] == "" {
				i++
			}
			r.code, r.flag, r.lang = append(r.code, code), a[:2], php
		case len(a) >= 2 && a[0] == '-' && (a[1] == 'f' || a[1] == 'F'):
			file, _, ok := attached(a[2:], args[i+1:])
			if !ok {
				r.openValue = true
				return r
			}
			r.file, r.rest = file, nil
			return r
		case len(a) >= 2 && a[0] == '-' && strings.IndexByte("dczt", a[1]) >= 0:
			if len(a) == 2 {
				i++
			}
		case a == "-a":
			r.stdin, r.lang = true, php // statements without tags
		case a == "-S" || a == "-l" || a == "-s" || a == "-v" || a == "-h" || a == "-i" || a == "-m" || a == "--version" || a == "--help" || a == "--ini":
			r.none = true
			return r
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			if r.code == nil {
				if a == "-" {
					r.stdin = true
				} else {
					r.file = a
				}
				r.rest = args[i+1:]
			}
			return r
		}
	}
	return r.ended()
}
