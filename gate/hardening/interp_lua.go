package hardening

import (
	"regexp"
	"strings"
)

// lua is what the scanner knows of Lua (lua, luajit).
var lua = &language{
	name: "lua",
	lex:  lexLua,
	calls: map[string]callee{
		"os.execute": {how: shellString},
		"io.popen":   {how: shellString},
		"load":       {how: evalCode},
		"loadstring": {how: evalCode},
		"dofile":     {how: loadsFile},
		"loadfile":   {how: loadsFile},
	},
	modules: map[string]bool{"os": true, "io": true},
	loaders: map[string]bool{"require": true},
	dynamic: map[string]string{
		"ffi":             "calls native code through ffi",
		"posix":           "loads luaposix, whose functions start programs",
		"package.loadlib": "loads native code with package.loadlib",
		"package.loaded":  "reaches modules through package.loaded",
		"rawget":          "reaches names through rawget",
		"getfenv":         "reaches an environment through getfenv",
		"setfenv":         "changes an environment with setfenv",
		"debug":           "reaches functions through the debug library",
		"_G[":             "looks up a global by a name built when it runs",
		"_ENV[":           "looks up a global by a name built when it runs",
		"os[":             "looks up os's functions by a name built when it runs",
		"io[":             "looks up io's functions by a name built when it runs",
	},
	globals:   []string{"_G", "_ENV"},
	concat:    []string{".."},
	parenless: true,
	single:    true,
	member:    map[string]bool{".": true, ":": true},
	suffixes:  []string{".lua"},
	danger:    regexp.MustCompile("execute|popen|load|require|dofile"),
}

var luaOps = []string{"...", "..", "==", "~=", "<=", ">=", "//", "::", "<<", ">>"}

var luaLong = regexp.MustCompile(`^\[(=*)\[`)

// lexLua reads Lua: '…' and "…" with escapes, long strings [[…]] and
// [==[…]==], comments (-- and --[[…]]).
func lexLua(src string) *lexed {
	l := &lexer{src: src}
	if strings.HasPrefix(src, "#") {
		l.i = strings.IndexByte(src, '\n')
		if l.i < 0 {
			l.i = len(src)
		}
	}
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\n':
			l.i++
		case strings.HasPrefix(src[l.i:], "--"):
			l.i += 2
			if m := luaLong.FindStringSubmatch(src[l.i:]); m != nil {
				body, ok := l.luaLong(len(m[0]), m[1])
				if !ok {
					l.fail("a comment that does not end")
				}
				l.comment(body)
				break
			}
			end := strings.IndexByte(src[l.i:], '\n')
			if end < 0 {
				end = len(src) - l.i
			}
			l.comment(src[l.i : l.i+end])
			l.i += end
		case c == '[' && luaLong.MatchString(src[l.i:]):
			m := luaLong.FindStringSubmatch(src[l.i:])
			body, ok := l.luaLong(len(m[0]), m[1])
			if !ok {
				l.fail("a long string that does not end")
				break
			}
			l.str(strings.TrimPrefix(body, "\n"), true)
		case c == '\'' || c == '"':
			l.i++
			body, ok := l.quoted(c)
			if !ok {
				l.fail("a string that does not end")
				break
			}
			v, known := luaEscapes(body)
			l.str(v, known)
		case isIdentStart(c):
			l.emit(token{kind: tkIdent, text: l.ident()})
		case '0' <= c && c <= '9':
			l.number()
		default:
			l.operator(luaOps)
		}
	}
	return &l.out
}

// luaLong reads a long bracket's text after its opening of n bytes.
func (l *lexer) luaLong(n int, level string) (string, bool) {
	l.i += n
	end := strings.Index(l.src[l.i:], "]"+level+"]")
	if end < 0 {
		l.i = len(l.src)
		return "", false
	}
	body := l.src[l.i : l.i+end]
	l.i += end + len(level) + 2
	return body, true
}

// luaEscapes decodes a Lua string's escapes.
func luaEscapes(s string) (string, bool) {
	text, ok, _ := decodeEscapes(s, func(s string, i int, b *strings.Builder) (int, bool, bool) {
		c := s[i]
		if ctl, ok := controlEscape(c); ok {
			b.WriteByte(ctl)
			return 0, true, false
		}
		switch {
		case c == 'z':
			more := 0
			for i+1+more < len(s) && strings.IndexByte(" \t\r\n\f\v", s[i+1+more]) >= 0 {
				more++
			}
			return more, true, false
		case c == 'u':
			if i+1 >= len(s) || s[i+1] != '{' {
				return 0, false, false
			}
			return bracedCode(s, i, b)
		case c == 'x':
			v, n := digits(s, i+1, 2, 16)
			if n < 2 {
				return 0, false, false
			}
			b.WriteByte(byte(v))
			return 2, true, false
		case '0' <= c && c <= '9':
			v, n := digits(s, i, 3, 10)
			b.WriteByte(byte(v))
			return n - 1, true, false
		}
		more, ok := perlEscape(s, i, b)
		return more, ok, false
	})
	return text, ok
}

// luaRun reads lua's command line: -e (several, in order), -l modules,
// a script, - or nothing for standard input.
func luaRun(args []string) run {
	var r run
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				r.file, r.rest = args[i+1], args[i+2:]
			}
			return r
		case a == "-":
			r.stdin, r.rest = true, args[i+1:]
			return r
		case strings.HasPrefix(a, "-e"):
			code, _, ok := attached(a[2:], args[i+1:])
			if !ok {
				r.openValue = true
				return r
			}
			if a == "-e" {
				i++
			}
			r.code, r.flag = append(r.code, code), "-e"
		case strings.HasPrefix(a, "-l") || strings.HasPrefix(a, "-j"):
			mod, _, ok := attached(a[2:], args[i+1:])
			if !ok {
				r.openValue = true
				return r
			}
			if len(a) == 2 {
				i++
			}
			if a[1] == 'l' {
				_, mod, _ = strings.Cut("="+mod, "=")
				if k := strings.IndexByte(mod, '='); k >= 0 {
					mod = mod[k+1:]
				}
				r.modules = append(r.modules, mod)
			}
		case a == "-i":
			r.interactive = true
		case a == "-v" || a == "-b" || strings.HasPrefix(a, "-b"):
			if r.code == nil {
				r.none = true
				return r
			}
		case strings.HasPrefix(a, "-"):
		default:
			r.file, r.rest = a, args[i+1:]
			return r
		}
	}
	return r.ended()
}
