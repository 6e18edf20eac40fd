package hardening

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// python is what the scanner knows of Python.
var python = &language{
	name: "python",
	lex:  lexPython,
	calls: func() map[string]callee {
		m := map[string]callee{
			"subprocess.getoutput":                       {how: shellString},
			"subprocess.getstatusoutput":                 {how: shellString},
			"commands.getoutput":                         {how: shellString},
			"commands.getstatusoutput":                   {how: shellString},
			"commands.getstatus":                         {how: shellString},
			"platform.popen":                             {how: shellString},
			"popen2.popen2":                              {how: shellString},
			"popen2.popen3":                              {how: shellString},
			"popen2.popen4":                              {how: shellString},
			"pty.spawn":                                  {how: argvValue},
			"asyncio.create_subprocess_shell":            {how: shellString},
			"asyncio.create_subprocess_exec":             {how: allArgs},
			"asyncio.subprocess.create_subprocess_shell": {how: shellString},
			"asyncio.subprocess.create_subprocess_exec":  {how: allArgs},
			"eval":                                {how: evalCode},
			"exec":                                {how: evalCode},
			"compile":                             {how: evalCode},
			"getattr":                             {how: attribute, at: 1},
			"timeit.timeit":                       {how: evalTimeit},
			"timeit.repeat":                       {how: evalTimeit},
			"timeit.Timer":                        {how: evalTimeit},
			"profile.run":                         {how: evalCode},
			"profile.runctx":                      {how: evalCode},
			"cProfile.run":                        {how: evalCode},
			"cProfile.runctx":                     {how: evalCode},
			"multiprocessing.util.spawnv_passfds": {how: programVec},
			"builtins.eval":                       {how: evalCode},
			"builtins.exec":                       {how: evalCode},
			"builtins.compile":                    {how: evalCode},
			"builtins.getattr":                    {how: attribute, at: 1},
		}
		for _, f := range []string{"run", "call", "check_call", "check_output", "Popen"} {
			m["subprocess."+f] = callee{how: subprocessCall}
		}
		for _, os := range []string{"os", "posix", "nt"} {
			for _, f := range []string{"system", "popen", "popen2", "popen3", "popen4"} {
				m[os+"."+f] = callee{how: shellString}
			}
			for _, f := range []string{"execl", "execle", "execlp", "execlpe"} {
				m[os+"."+f] = callee{how: programArg0}
			}
			for _, f := range []string{"execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp"} {
				m[os+"."+f] = callee{how: programVec}
			}
			for _, f := range []string{"spawnl", "spawnle", "spawnlp", "spawnlpe"} {
				m[os+"."+f] = callee{how: programArg0, at: 1}
			}
			for _, f := range []string{"spawnv", "spawnve", "spawnvp", "spawnvpe"} {
				m[os+"."+f] = callee{how: programVec, at: 1}
			}
			m[os+".startfile"] = callee{how: argvValue}
		}
		return m
	}(),
	modules: map[string]bool{"os": true, "posix": true, "nt": true, "subprocess": true, "pty": true, "commands": true, "asyncio.subprocess": true, "popen2": true, "builtins": true},
	loaders: map[string]bool{"__import__": true, "importlib.import_module": true, "importlib.__import__": true, "builtins.__import__": true},
	dynamic: map[string]string{
		"ctypes":                      "calls native code through ctypes",
		"cffi":                        "calls native code through cffi",
		"_posixsubprocess":            "starts processes through _posixsubprocess",
		"_winapi":                     "starts processes through _winapi",
		"_subprocess":                 "starts processes through _subprocess",
		"sys.modules":                 "reaches modules through sys.modules",
		"importlib.util":              "loads modules through importlib",
		"importlib.machinery":         "loads modules through importlib",
		"__builtins__":                "reaches the builtins through __builtins__",
		"pdb":                         "runs debugger commands, which may be any code",
		"bdb":                         "runs debugger commands, which may be any code",
		"breakpoint":                  "stops in the debugger, which runs commands it reads",
		"code.interact":               "runs code it reads",
		"code.InteractiveInterpreter": "runs code it is given",
		"code.InteractiveConsole":     "runs code it is given",
		"code.compile_command":        "compiles code it is given",
		"runpy":                       "runs code through runpy",
		"pickle.loads":                "unpickles data, which can call any function",
		"marshal":                     "loads code objects with marshal",
		".__dict__":                   "reaches attributes through __dict__",
		".__getattribute__":           "reaches attributes through __getattribute__",
		".__globals__":                "reaches a function's globals",
		".__subclasses__":             "reaches classes through __subclasses__",
		".__builtins__":               "reaches the builtins through __builtins__",
		".__code__":                   "rewrites a function's code",
	},
	named:    map[string]bool{"__import__": true, "__builtins__": true, "__globals__": true, "__subclasses__": true, "__dict__": true, "system": true, "popen": true, "Popen": true, "check_output": true, "check_call": true, "getoutput": true, "getstatusoutput": true, "execv": true, "execvp": true, "execve": true, "execvpe": true, "execl": true, "execlp": true, "execle": true, "execlpe": true, "spawnv": true, "spawnvp": true, "spawnl": true, "spawnlp": true, "posix_spawn": true, "posix_spawnp": true, "create_subprocess_shell": true, "create_subprocess_exec": true},
	concat:   []string{"+"},
	adjacent: true,
	member:   map[string]bool{".": true},
	suffixes: []string{".py", "/__init__.py"},
	danger:   regexp.MustCompile(`system|popen|exec|spawn|subprocess|__import__`),
}

// The import readers are set once the languages exist: they scan the
// files a line writes, and through them reach the interpreters' table.
func init() { python.names = pythonImports }

// pythonImports binds the names import statements give: import a.b as c,
// from a import b as c, from a import *.
func pythonImports(s *scanner, toks []token) {
	for i := 0; i < len(toks); i++ {
		if toks[i].kind != tkIdent || i > 0 && toks[i-1].kind != tkNewline && toks[i-1].text != ";" && toks[i-1].text != ":" {
			continue
		}
		switch toks[i].text {
		case "import":
			i = s.pythonImport(toks, i+1, "")
		case "from":
			j := i + 1
			var from []string
			for j < len(toks) && (toks[j].kind == tkIdent && toks[j].text != "import" || toks[j].text == ".") {
				if toks[j].kind == tkIdent {
					from = append(from, toks[j].text)
				}
				s.bound[j] = true
				j++
			}
			if j < len(toks) && toks[j].text == "import" && len(from) > 0 {
				i = s.pythonImport(toks, j+1, strings.Join(from, "."))
			}
		}
	}
}

// pythonImport binds the names of one import statement from toks[j] to
// its end; from is the module of a from-import.
func (s *scanner) pythonImport(toks []token, j int, from string) int {
	for ; j < len(toks) && toks[j].kind != tkNewline && toks[j].text != ";"; j++ {
		t := toks[j]
		switch {
		case t.text == "*" && from != "":
			for full := range s.lang.calls {
				if strings.HasPrefix(full, from+".") && !strings.Contains(full[len(from)+1:], ".") {
					s.names[full[len(from)+1:]] = full
				}
			}
		case t.kind != tkIdent:
		default:
			var parts []string
			k := j
			for k < len(toks) && toks[k].kind == tkIdent && toks[k].text != "as" {
				parts = append(parts, toks[k].text)
				s.bound[k] = true
				if k+1 < len(toks) && toks[k+1].text == "." {
					k += 2
					continue
				}
				k++
				break
			}
			full := strings.Join(parts, ".")
			if from != "" {
				full = from + "." + full
				s.written(strings.ReplaceAll(from, ".", "/"), s.lang.suffixes...)
			} else {
				s.written(strings.ReplaceAll(full, ".", "/"), s.lang.suffixes...)
			}
			local := parts[0]
			if from != "" {
				local = parts[len(parts)-1]
			}
			if k+1 < len(toks) && toks[k].text == "as" && toks[k+1].kind == tkIdent {
				local = toks[k+1].text
				s.bound[k+1] = true
				k += 2
			} else if from == "" {
				full = parts[0]
			}
			if local != full {
				s.names[local] = full
			}
			j = k - 1
		}
	}
	return j
}

var pythonOps = []string{"**=", "//=", ">>=", "<<=", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "**", "//", "<<", ">>"}

// lexPython reads Python: strings with their prefixes (r, b, u, f and
// their pairs), triple quotes and escapes; f-strings' fields are code;
// comments; newlines end statements outside brackets.
func lexPython(src string) *lexed {
	l := &lexer{src: src}
	depth := 0
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case c == '\n':
			if depth == 0 {
				l.newline()
			}
			l.i++
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
		case c == '"' || c == '\'':
			l.pythonString("")
		case isIdentStart(c):
			name := l.ident()
			if l.i < len(src) && (src[l.i] == '"' || src[l.i] == '\'') && len(name) <= 2 && strings.Trim(strings.ToLower(name), "rbuft") == "" {
				l.pythonString(strings.ToLower(name))
				continue
			}
			if strings.IndexFunc(name, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
				name = norm.NFKC.String(name) // as Python reads names (PEP 3131)
			}
			l.emit(token{kind: tkIdent, text: name})
		case '0' <= c && c <= '9' || c == '.' && l.i+1 < len(src) && '0' <= src[l.i+1] && src[l.i+1] <= '9':
			l.number()
		default:
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth = max(depth-1, 0)
			case ';':
				l.newline()
			}
			l.operator(pythonOps)
		}
	}
	return &l.out
}

// pythonString reads a string literal at l.i with its prefix.
func (l *lexer) pythonString(prefix string) {
	q := l.src[l.i : l.i+1]
	if strings.HasPrefix(l.src[l.i:], q+q+q) {
		q = q + q + q
	}
	l.i += len(q)
	raw, bytes := strings.Contains(prefix, "r"), strings.Contains(prefix, "b")
	// f-strings and t-strings: their fields are code, which may hold the
	// string's own quote (PEP 701).
	format := strings.ContainsAny(prefix, "ft")
	start := l.i
	for {
		if l.i >= len(l.src) {
			l.fail("a string that does not end")
			return
		}
		if strings.HasPrefix(l.src[l.i:], q) {
			break
		}
		switch l.src[l.i] {
		case '\\':
			l.i += 2
			continue
		case '{':
			if format && !strings.HasPrefix(l.src[l.i:], "{{") {
				end := codeEnd(l.src, l.i+1)
				if end < 0 {
					l.fail("an f-string field that does not end")
					return
				}
				l.i = end + 1
				continue
			}
			if format {
				l.i += 2
				continue
			}
		case '\n':
			if len(q) == 1 {
				l.fail("a string that does not end on its line")
				return
			}
		}
		l.i++
	}
	body := l.src[start:l.i]
	l.i += len(q)
	known := true
	if format {
		var fields []string
		body, fields = fstringFields(body)
		if len(fields) > 0 {
			known = false
			l.out.embedded = append(l.out.embedded, fields...)
		}
	}
	if !raw {
		var ok bool
		body, ok = pythonEscapes(body, bytes)
		known = known && ok
	}
	l.str(body, known)
}

// fstringFields is an f-string's text with {{ and }} undoubled, and the
// code of its fields.
func fstringFields(body string) (string, []string) {
	var b strings.Builder
	var fields []string
	for i := 0; i < len(body); i++ {
		switch {
		case strings.HasPrefix(body[i:], "{{"), strings.HasPrefix(body[i:], "}}"):
			b.WriteByte(body[i])
			i++
		case body[i] == '{':
			end := codeEnd(body, i+1)
			if end < 0 {
				end = len(body)
			}
			fields = append(fields, body[i+1:end])
			i = end
		default:
			b.WriteByte(body[i])
		}
	}
	return b.String(), fields
}

// pythonEscapes decodes a Python string's escapes; false for one whose
// value codewhale-ls does not compute (\N{name}).
func pythonEscapes(s string, bytes bool) (string, bool) {
	text, ok, _ := decodeEscapes(s, func(s string, i int, b *strings.Builder) (int, bool, bool) {
		c := s[i]
		if ctl, ok := controlEscape(c); ok {
			b.WriteByte(ctl)
			return 0, true, false
		}
		switch {
		case c == '\n':
		case c == '\\' || c == '\'' || c == '"':
			b.WriteByte(c)
		case c == 'x':
			v, n := digits(s, i+1, 2, 16)
			if n < 2 {
				return 0, false, false
			}
			writeCode(b, rune(v), bytes)
			return 2, true, false
		case (c == 'u' || c == 'U') && bytes:
			b.WriteString(`\` + string(c))
		case c == 'u' || c == 'U':
			width := map[byte]int{'u': 4, 'U': 8}[c]
			v, n := digits(s, i+1, width, 16)
			if n < width {
				return 0, false, false
			}
			b.WriteRune(rune(v))
			return width, true, false
		case c == 'N':
			return 0, false, false
		case '0' <= c && c <= '7':
			v, n := digits(s, i, 3, 8)
			writeCode(b, rune(v), bytes)
			return n - 1, true, false
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
		return 0, true, false
	})
	return text, ok
}

// writeCode writes a character given by its code: a byte in bytes, a
// character in text.
func writeCode(b *strings.Builder, r rune, bytes bool) {
	if bytes || r < utf8.RuneSelf {
		b.WriteByte(byte(r))
		return
	}
	b.WriteRune(r)
}
