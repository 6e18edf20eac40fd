package hardening

import (
	"regexp"
	"slices"
	"strings"
)

// javascript is what the scanner knows of JavaScript and TypeScript
// (node, deno, bun).
var javascript = &language{
	name: "javascript",
	lex:  lexJS,
	calls: map[string]callee{
		"child_process.exec":         {how: shellString},
		"child_process.execSync":     {how: shellString},
		"child_process.execFile":     {how: programArgs},
		"child_process.execFileSync": {how: programArgs},
		"child_process.spawn":        {how: nodeSpawn},
		"child_process.spawnSync":    {how: nodeSpawn},
		"child_process.fork":         {how: nodeFork},
		"Deno.Command":               {how: denoCommand},
		"Deno.spawn":                 {how: denoCommand},
		"Deno.spawnSync":             {how: denoCommand},
		"Deno.spawnChild":            {how: denoCommand},
		"Deno.run":                   {how: optionsCmd},
		"Bun.spawn":                  {how: optionsCmd},
		"Bun.spawnSync":              {how: optionsCmd},
		"eval":                       {how: evalCode},
		"Function":                   {how: evalCode, at: -1},
		"vm.runInThisContext":        {how: evalCode},
		"vm.runInNewContext":         {how: evalCode},
		"vm.runInContext":            {how: evalCode},
		"vm.compileFunction":         {how: evalCode},
		"vm.Script":                  {how: evalCode},
		"vm.SourceTextModule":        {how: evalCode},
		"Reflect.get":                {how: attribute, at: 1},
	},
	modules: map[string]bool{"child_process": true, "vm": true, "Deno": true, "Bun": true},
	strict:  map[string]bool{"child_process": true},
	loaders: map[string]bool{"require": true, "import": true, "module.require": true, "process.mainModule.require": true, "require.main.require": true, "process.getBuiltinModule": true, "import.meta.require": true},
	dynamic: map[string]string{
		"process.binding":                "reaches node's internals through process.binding",
		"process._linkedBinding":         "reaches node's internals through process._linkedBinding",
		"process.dlopen":                 "loads native code with process.dlopen",
		"worker_threads":                 "runs code in workers",
		"--expose-internals":             "exposes node's internal modules",
		"Deno.dlopen":                    "loads native code with Deno.dlopen",
		"bun:ffi":                        "loads native code through bun:ffi",
		"module.constructor":             "reaches the module loader",
		".constructor(":                  "reaches Function through .constructor",
		"globalThis[":                    "looks up a global by a name built when it runs",
		"global[":                        "looks up a global by a name built when it runs",
		"this[":                          "looks up a global by a name built when it runs",
		"process[":                       "looks up process's functions by a name built when it runs",
		"Deno[":                          "looks up Deno's functions by a name built when it runs",
		"Bun[":                           "looks up Bun's functions by a name built when it runs",
		"child_process[":                 "looks up child_process's functions by a name built when it runs",
		"require.cache":                  "reaches the module cache",
		"module.createRequire":           "makes a loader with module.createRequire",
		"module._load":                   "loads modules through module._load",
		"module.Module":                  "loads modules through module.Module",
		"process.mainModule[":            "looks up the loader by a name built when it runs",
		"module[":                        "looks up the loader by a name built when it runs",
		"require[":                       "looks up the loader by a name built when it runs",
		"process.mainModule.constructor": "reaches the module loader",
	},
	globals:  []string{"globalThis", "global", "window", "self"},
	concat:   []string{"+"},
	member:   map[string]bool{".": true, "?.": true},
	suffixes: []string{".js", ".mjs", ".cjs", ".ts", "/index.js"},
	danger:   regexp.MustCompile("child_process|exec|spawn|Command|Deno|Bun|eval|Function|require|import"),
}

// The import readers are set once the languages exist: they scan the
// files a line writes, and through them reach the interpreters' table.
func init() { javascript.names = jsImports }

// jsImports binds the names import declarations and destructuring give:
// import {execSync as run} from "child_process", const {spawn} = cp.
func jsImports(s *scanner, toks []token) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tkIdent && t.text == "import" && (i+1 < len(toks) && toks[i+1].text != "(" && toks[i+1].text != "."):
			end := i + 1
			for end < len(toks) && !(toks[end].kind == tkIdent && toks[end].text == "from") && toks[end].text != ";" && toks[end].kind != tkString {
				end++
			}
			if end+1 >= len(toks) || toks[end].text != "from" || toks[end+1].kind != tkString {
				s.bound[i] = true // import "module", for its side effects
				continue
			}
			s.bound[i] = true
			mod := strings.TrimPrefix(toks[end+1].text, "node:")
			for j := i + 1; j < end; j++ {
				s.bound[j] = true
				switch {
				case toks[j].text == "*" && j+2 < end && toks[j+1].text == "as":
					s.names[toks[j+2].text] = mod
					s.bound[j+2] = true
					j += 2
				case toks[j].kind != tkIdent || toks[j].text == "as" || toks[j].text == "type":
				case j+2 < end && toks[j+1].text == "as":
					if toks[j].text == "default" {
						s.names[toks[j+2].text] = mod
					} else {
						s.names[toks[j+2].text] = mod + "." + toks[j].text
					}
					s.bound[j+2] = true
					j += 2
				case j > i+1 && toks[j-1].text == "as":
				case inBraces(toks, i+1, j):
					s.names[toks[j].text] = mod + "." + toks[j].text
				default:
					s.names[toks[j].text] = mod
				}
			}
			i = end + 1
		case t.kind == tkPunct && t.text == "=" && i > 0 && toks[i-1].text == "}" && i+1 < len(toks) && toks[i+1].kind == tkIdent:
			open := i - 1
			for depth := 0; open >= 0; open-- {
				if toks[open].text == "}" {
					depth++
				} else if toks[open].text == "{" {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if open < 0 {
				continue
			}
			c := s.readChain(toks, i+1)
			mod, attr, ok := s.module(c.full)
			if !ok {
				continue
			}
			from := mod
			if attr != "" {
				from += "." + attr
			}
			s.bound[i+1] = true
			for j := open + 1; j < i-1; j++ {
				switch {
				case toks[j].text == "...":
					s.unseeable("gathers the functions of " + from + " into an object nobody can follow")
				case toks[j].kind != tkIdent:
				case j+2 < i && toks[j+1].text == ":" && toks[j+2].kind == tkIdent:
					s.names[toks[j+2].text] = from + "." + toks[j].text
					s.bound[j], s.bound[j+2] = true, true
					j += 2
				default:
					s.names[toks[j].text] = from + "." + toks[j].text
					s.bound[j] = true
				}
			}
		}
	}
}

// inBraces says toks[j] is inside braces opened after toks[from].
func inBraces(toks []token, from, j int) bool {
	depth := 0
	for k := from; k < j; k++ {
		switch toks[k].text {
		case "{":
			depth++
		case "}":
			depth--
		}
	}
	return depth > 0
}

var jsOps = []string{">>>=", "===", "!==", "**=", "...", ">>>", "<<=", ">>=", "&&=", "||=", "??=", "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>"}

var jsRegexAfter = map[string]bool{"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true, "delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true}

func isJSIdentStart(c byte) bool { return isIdentStart(c) || c == '$' }

// lexJS reads JavaScript: '…' and "…" with escapes, template literals
// whose ${…} are code (a template tagged $, Bun's and zx's shell, is a
// command), regular expressions, comments.
func lexJS(src string) *lexed { return relex(src, lexJSAs) }

// lexJSAs reads JavaScript, taking the other reading of each guess when
// flip.
func lexJSAs(src string, flip bool) *lexed {
	l := &lexer{src: src, flip: flip}
	if strings.HasPrefix(src, "#!") {
		l.i = strings.IndexByte(src, '\n')
		if l.i < 0 {
			l.i = len(src)
		}
	}
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case c == '\n':
			l.newline()
			l.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.i++
		case strings.HasPrefix(src[l.i:], "//"):
			end := strings.IndexByte(src[l.i:], '\n')
			if end < 0 {
				end = len(src) - l.i
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
		case c == '\'' || c == '"':
			l.i++
			body, ok := l.quoted(c)
			if !ok {
				l.fail("a string that does not end")
				break
			}
			v, known := jsEscapes(body)
			l.str(v, known)
		case c == '`':
			prev := l.prev()
			l.i++
			v, known, ok := l.template()
			if !ok {
				l.fail("a template that does not end")
				break
			}
			if prev.kind == tkIdent && prev.text == "$" {
				l.command(v, known)
			} else {
				l.str(v, known)
			}
		case c == '/':
			prev := l.prev()
			regex := prev.kind == tkNewline || prev.kind == tkPunct && prev.text != ")" && prev.text != "]" && prev.text != "}" || prev.kind == tkIdent && jsRegexAfter[prev.text]
			if prev.kind == tkPunct && prev.text == "}" {
				l.out.guessed, regex = true, !l.flip
			}
			if prev.kind == tkPunct && (prev.text == "++" || prev.text == "--") {
				l.out.guessed, regex = true, l.flip // x++ / 2, or ++/re/.lastIndex
			}
			if !regex {
				l.operator([]string{"/="})
				break
			}
			l.i++
			start, class := l.i, false
			for ; l.i < len(src) && (src[l.i] != '/' || class); l.i++ {
				switch src[l.i] {
				case '\\':
					l.i++
				case '[':
					class = true
				case ']':
					class = false
				case '\n':
					l.fail("a regular expression that does not end")
				}
			}
			if l.i >= len(src) {
				l.fail("a regular expression that does not end")
				break
			}
			l.comment(src[start:l.i])
			l.i++
			for l.i < len(src) && isIdentByte(src[l.i]) {
				l.i++
			}
			l.emit(token{kind: tkString, text: src[start : l.i-1]})
		case isJSIdentStart(c) || strings.HasPrefix(src[l.i:], `\u`):
			l.emit(token{kind: tkIdent, text: l.jsIdent()})
		case '0' <= c && c <= '9' || c == '.' && l.i+1 < len(src) && '0' <= src[l.i+1] && src[l.i+1] <= '9':
			l.number()
		default:
			l.operator(jsOps)
		}
	}
	return &l.out
}

// quoted reads a quoted text up to the unescaped quote q.
func (l *lexer) quoted(q byte) (string, bool) {
	start := l.i
	for ; l.i < len(l.src); l.i++ {
		switch l.src[l.i] {
		case '\\':
			l.i++
		case q:
			body := l.src[start:l.i]
			l.i++
			return body, true
		}
	}
	return "", false
}

// template reads a template literal after its backquote: its value, and
// whether it is known (no ${…}); the code of each ${…} is embedded.
func (l *lexer) template() (string, bool, bool) {
	var b strings.Builder
	known := true
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '`':
			l.i++
			v, ok := jsEscapes(b.String())
			return v, known && ok, true
		case c == '\\' && l.i+1 < len(l.src):
			b.WriteString(l.src[l.i : l.i+2])
			l.i += 2
		case c == '$' && l.i+1 < len(l.src) && l.src[l.i+1] == '{':
			known = false
			end := codeEnd(l.src, l.i+2)
			if end < 0 {
				return "", false, false
			}
			l.out.embedded = append(l.out.embedded, l.src[l.i+2:end])
			l.i = end + 1
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	return "", false, false
}

// jsEscapes decodes a JavaScript string's escapes.
func jsEscapes(s string) (string, bool) {
	text, ok, _ := decodeEscapes(s, func(s string, i int, b *strings.Builder) (int, bool, bool) {
		c := s[i]
		if ctl, ok := controlEscape(c); ok && c != 'a' {
			b.WriteByte(ctl)
			return 0, true, false
		}
		switch c {
		case '\n':
		case '0':
			b.WriteByte(0)
		case 'x':
			v, n := digits(s, i+1, 2, 16)
			if n < 2 {
				return 0, false, false
			}
			b.WriteRune(rune(v))
			return 2, true, false
		case 'u':
			if i+1 < len(s) && s[i+1] == '{' {
				return bracedCode(s, i, b)
			}
			v, n := digits(s, i+1, 4, 16)
			if n < 4 {
				return 0, false, false
			}
			b.WriteRune(rune(v))
			return 4, true, false
		default:
			b.WriteByte(c)
		}
		return 0, true, false
	})
	return text, ok
}

// nodeRun reads node's command line: -e, --eval, -p, --print (also -pe,
// --eval=CODE), -r and --import modules, a script, - or nothing for
// standard input.
func nodeRun(args []string) run {
	var r run
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "-":
			r.stdin, r.rest = true, args[i+1:]
			return r
		case a == "--":
			if i+1 < len(args) {
				r.file, r.rest = args[i+1], args[i+2:]
			}
			return r
		case name == "--eval" || name == "--print" || a == "-e" || a == "-p" || a == "-pe" || a == "-ep":
			if hasValue && strings.HasPrefix(a, "--") {
				r.code, r.flag, r.rest = []string{value}, name, args[i+1:]
				return r
			}
			if i+1 == len(args) {
				r.openValue = true
				return r
			}
			r.code, r.flag, r.rest = []string{args[i+1]}, a, args[i+2:]
			return r
		case name == "-r" || name == "--require" || name == "--import" || name == "--loader" || name == "--experimental-loader":
			if !hasValue {
				if i+1 == len(args) {
					r.openValue = true
					return r
				}
				i++
				value = args[i]
			}
			r.modules = append(r.modules, value)
		case !hasValue && (a == "-C" || a == "--conditions" || a == "--env-file" || a == "--title" || a == "--inspect-port" || a == "--input-type" || a == "--cpu-prof-dir" || a == "--heap-prof-dir" || a == "--diagnostic-dir" || a == "--redirect-warnings"):
			i++
		case a == "--expose-internals":
			r.modules = append(r.modules, a)
		case a == "-i" || a == "--interactive":
			r.interactive = true
		case a == "-v" || a == "--version" || a == "-h" || a == "--help" || a == "-c" || a == "--check" || a == "--test" || a == "--run":
			r.none = true
			return r
		case strings.HasPrefix(a, "-"):
		default:
			r.file, r.rest = a, args[i+1:]
			return r
		}
	}
	r.stdin = true
	return r
}

// denoRun reads deno's command line: eval CODE, run FILE (- for
// standard input), repl --eval CODE, a file; its other subcommands run
// no code given to them.
func denoRun(args []string) run {
	if len(args) == 0 {
		return run{stdin: true}
	}
	valued := []string{"-c", "--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--env-file", "-L", "--log-level", "--ext", "--v8-flags", "--inspect", "--inspect-brk", "--inspect-wait"}
	sub, rest := args[0], args[1:]
	switch {
	case sub == "eval":
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			switch {
			case slices.Contains(valued, a):
				i++
			case strings.HasPrefix(a, "-"):
			default:
				return run{code: []string{a}, flag: "eval", rest: rest[i+1:]}
			}
		}
		return run{openValue: true}
	case sub == "repl":
		for i := 0; i < len(rest); i++ {
			if rest[i] == "--eval" && i+1 < len(rest) {
				return run{code: []string{rest[i+1]}, flag: "repl --eval", interactive: true}
			}
			if v, ok := strings.CutPrefix(rest[i], "--eval="); ok {
				return run{code: []string{v}, flag: "repl --eval", interactive: true}
			}
		}
		return run{stdin: true}
	case sub == "run" || strings.HasPrefix(sub, "-"):
		if sub != "run" {
			rest = args
		}
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			switch {
			case a == "-":
				return run{stdin: true, rest: rest[i+1:]}
			case slices.Contains(valued, a):
				i++
			case a == "-v" || a == "--version" || a == "-h" || a == "--help":
				return run{none: true}
			case strings.HasPrefix(a, "-"):
			default:
				return run{file: a, rest: rest[i+1:]}
			}
		}
		return run{openValue: sub == "run"}
	case denoSubcommands[sub]:
		return run{none: true}
	}
	return run{file: sub, rest: rest}
}

var denoSubcommands = map[string]bool{"add": true, "bench": true, "bundle": true, "cache": true, "check": true, "clean": true, "compile": true, "completions": true, "coverage": true, "doc": true, "fmt": true, "help": true, "info": true, "init": true, "install": true, "jupyter": true, "lint": true, "lsp": true, "outdated": true, "publish": true, "remove": true, "serve": true, "task": true, "test": true, "types": true, "uninstall": true, "upgrade": true, "vendor": true, "x": true}

// bunRun reads bun's command line: -e, --eval, -p, --print CODE, run
// FILE or - for standard input, exec SCRIPT (a line of Bun's shell), a
// file; its other subcommands run no code given to them.
func bunRun(args []string) run {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case name == "--eval" || name == "--print" || a == "-e" || a == "-p":
			if hasValue && strings.HasPrefix(a, "--") {
				return run{code: []string{value}, flag: name, rest: args[i+1:]}
			}
			if i+1 == len(args) {
				return run{openValue: true}
			}
			return run{code: []string{args[i+1]}, flag: a, rest: args[i+2:]}
		case a == "exec":
			if i+1 < len(args) {
				return run{shellLine: strings.Join(args[i+1:], " "), none: true}
			}
			return run{openValue: true}
		case a == "run":
			for j := i + 1; j < len(args); j++ {
				switch b := args[j]; {
				case b == "-":
					return run{stdin: true, rest: args[j+1:]}
				case strings.HasPrefix(b, "-"):
				default:
					return run{file: b, rest: args[j+1:]}
				}
			}
			return run{openValue: true}
		case bunSubcommands[a] || a == "-v" || a == "--version" || a == "-h" || a == "--help":
			return run{none: true}
		case strings.HasPrefix(a, "-"):
		default:
			return run{file: a, rest: args[i+1:]}
		}
	}
	return run{none: true}
}

var bunSubcommands = map[string]bool{"add": true, "audit": true, "build": true, "create": true, "i": true, "info": true, "init": true, "install": true, "link": true, "outdated": true, "patch": true, "pm": true, "publish": true, "remove": true, "repl": true, "rm": true, "test": true, "unlink": true, "update": true, "upgrade": true, "why": true, "x": true}

// jsIdent reads a name, decoding the \uXXXX and \u{…} escapes a name may
// be written with (\u0065val is eval).
func (l *lexer) jsIdent() string {
	var b strings.Builder
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case isIdentByte(c) || c == '$':
			b.WriteByte(c)
			l.i++
		case strings.HasPrefix(l.src[l.i:], `\u`):
			end := l.i + 6
			if strings.HasPrefix(l.src[l.i:], `\u{`) {
				end = strings.IndexByte(l.src[l.i:], '}') + l.i + 1
			}
			if end <= l.i+2 || end > len(l.src) {
				l.i += 2
				return b.String() + `\u`
			}
			v, ok := jsEscapes(l.src[l.i:end])
			if !ok {
				l.i += 2
				return b.String() + `\u`
			}
			b.WriteString(v)
			l.i = end
		default:
			return b.String()
		}
	}
	return b.String()
}
