// Package shellpath reads one shell word, as a pattern (shell.Pattern
// syntax: quoted special bytes escaped with a backslash), as the set of
// paths it could name once the shell expands it: braces, a leading tilde,
// parameters and globs. It answers whether that set could meet a path,
// lexically (the read deny-list's rules, gate/config/readdeny.go) and on
// disk (bounded), without running anything.
//
// An unknown parameter ($X, ${X}, a command substitution, ~user with no
// such user) is taken as any text, slashes included, with one assumption:
// its value is not itself a denied path, so a match in which a variable
// supplies the last byte of the denied path does not count. `$X/.ssh/id_rsa`
// and `$XDG_CONFIG_HOME/gcloud` can reach a denied path (the text after
// the variable completes it); `$f` and `~/$f` alone cannot. A variable set
// to a denied path in the same command line is seen where it is assigned
// (its value is a word too). See docs/agents.md.
package shellpath

import (
	"os/user"
	"strings"
)

type kind uint8

const (
	lit  kind = iota // one byte
	one              // `?`: one byte, not `/`
	star             // `*`: any run of bytes, not `/`
	set              // `[…]`: one byte of a class, not `/`
	any              // a variable: any run of bytes, `/` included
	deep             // `**`: any run of bytes, `/` included, variable or not
)

type token struct {
	kind   kind
	b      byte   // lit
	class  string // set: the class body, ranges as written
	negate bool   // set: `[!…]` or `[^…]`
}

// Pattern is a parsed, absolute, lexically cleaned word.
type Pattern struct {
	tokens []token
	// DotGlob: wildcards also match a leading dot (bash's dotglob,
	// zsh's GLOB_DOTS); otherwise a name's leading `.` must be written.
	dotGlob bool
}

// Env is what a word's expansion depends on.
type Env struct {
	Home string // $HOME and `~`
	// DotGlob is set when the command line turns on dotglob.
	DotGlob bool
}

// Parse reads word (after Braces) relative to dir, itself a parsed
// pattern (the call's working directory, or a `cd`/`-C` target).
func Parse(word string, dir Pattern, env Env) Pattern {
	var toks []token
	i := 0
	if strings.HasPrefix(word, "~") {
		end := strings.IndexByte(word, '/')
		if end < 0 {
			end = len(word)
		}
		name := word[1:end]
		switch home, ok := userHome(name, env.Home); {
		case ok:
			toks = literal(home)
			i = end
		case !strings.ContainsAny(name, `\$*?[`):
			toks = []token{{kind: any}}
			i = end
		}
	}
	for i < len(word) {
		c := word[i]
		switch {
		case c == '\\' && i+1 < len(word):
			toks = append(toks, token{kind: lit, b: word[i+1]})
			i += 2
		case c == '*':
			if strings.HasPrefix(word[i:], "**") {
				// globstar: any depth. Without it `**` is `*`, which this
				// covers.
				toks = append(toks, token{kind: deep})
				i += strings.IndexFunc(word[i:]+"x", func(r rune) bool { return r != '*' })
				continue
			}
			toks = append(toks, token{kind: star})
			i++
		case c == '?':
			toks = append(toks, token{kind: one})
			i++
		case c == '[':
			t, n, ok := readClass(word[i:])
			if !ok {
				toks = append(toks, token{kind: lit, b: c})
				i++
				continue
			}
			toks = append(toks, t)
			i += n
		case c == '$':
			t, n := readParameter(word[i:], env.Home)
			toks = append(toks, t...)
			i += n
		default:
			toks = append(toks, token{kind: lit, b: c})
			i++
		}
	}
	if len(toks) == 0 || (toks[0].kind == lit && toks[0].b != '/') || (toks[0].kind != lit && toks[0].kind != any) {
		toks = append(append(append([]token{}, dir.tokens...), token{kind: lit, b: '/'}), toks...)
	}
	return Pattern{tokens: clean(toks), dotGlob: env.DotGlob}
}

// Literal parses an absolute path that holds no pattern.
func Literal(path string) Pattern { return Pattern{tokens: clean(literal(path))} }

func literal(s string) []token {
	toks := make([]token, len(s))
	for i := range len(s) {
		toks[i] = token{kind: lit, b: s[i]}
	}
	return toks
}

// userHome is the home `~name` names: ours for "", the user's from the
// system's database otherwise.
func userHome(name, home string) (string, bool) {
	if name == "" {
		return home, home != ""
	}
	if strings.ContainsAny(name, `\$*?[{+-`) {
		return "", false
	}
	u, err := user.Lookup(name)
	if err != nil || u.HomeDir == "" {
		return "", false
	}
	return u.HomeDir, true
}

// readClass reads a bracket expression at the start of s: the token and
// its length; ok is false for a `[` that opens none (a literal `[`).
func readClass(s string) (token, int, bool) {
	j := 1
	t := token{kind: set}
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		t.negate = true
		j++
	}
	start := j
	var body strings.Builder
	for j < len(s) {
		c := s[j]
		switch {
		case c == ']' && j > start:
			t.class = body.String()
			return t, j + 1, true
		case c == '\\' && j+1 < len(s):
			body.WriteByte(s[j+1])
			j += 2
			continue
		case c == '/':
			return token{}, 0, false // a slash ends a bracket expression in a path
		}
		body.WriteByte(c)
		j++
	}
	return token{}, 0, false
}

// readParameter reads the `$` expansion at the start of s: $HOME and
// ${HOME} are home; any other parameter, and a command substitution, is
// any text. A `$` starting none is itself.
func readParameter(s, home string) ([]token, int) {
	name, n := "", 0
	switch {
	case strings.HasPrefix(s, "${"):
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return []token{{kind: any}}, len(s)
		}
		name, n = s[2:end], end+1
	case len(s) > 1 && (isNameByte(s[1]) && !isDigit(s[1])):
		n = 2
		for n < len(s) && isNameByte(s[n]) {
			n++
		}
		name = s[1:n]
	case len(s) > 1 && (isDigit(s[1]) || strings.IndexByte("@*#?$!-", s[1]) >= 0):
		return []token{{kind: any}}, 2
	default:
		return []token{{kind: lit, b: '$'}}, 1
	}
	if name == "HOME" && home != "" {
		return literal(home), n
	}
	return []token{{kind: any}}, n
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isNameByte(c byte) bool { return c == '_' || isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' }

// clean is path cleaning over tokens: empty and `.` components go, `..`
// takes the component before it away (lexically, as filepath.Clean; a
// component holding a variable becomes a variable again, since it could
// have been several), and a trailing slash goes.
func clean(toks []token) []token {
	var comps [][]token
	var cur []token
	flush := func() {
		switch {
		case len(cur) == 0 || (len(cur) == 1 && cur[0] == token{kind: lit, b: '.'}):
		case len(cur) == 2 && cur[0] == token{kind: lit, b: '.'} && cur[1] == token{kind: lit, b: '.'}:
			if n := len(comps); n > 0 {
				if hasAny(comps[n-1]) {
					comps[n-1] = []token{{kind: any}}
				} else {
					comps = comps[:n-1]
				}
			}
		default:
			comps = append(comps, cur)
		}
		cur = nil
	}
	for _, t := range toks {
		if t.kind == lit && t.b == '/' {
			flush()
			continue
		}
		cur = append(cur, t)
	}
	flush()
	out := []token{}
	for _, c := range comps {
		out = append(out, token{kind: lit, b: '/'})
		out = append(out, c...)
	}
	if len(out) == 0 {
		out = []token{{kind: lit, b: '/'}}
	}
	return out
}

// hasAny reports a variable or `**` among toks.
func hasAny(toks []token) bool {
	for _, t := range toks {
		if t.kind == any || t.kind == deep {
			return true
		}
	}
	return false
}

// String is the pattern, for reasons: a variable shows as `…`.
func (p Pattern) String() string { return p.render(false) }

// Key identifies p exactly (String does not: a quoted `*` and a glob's
// look alike), for caching what was found of it.
func (p Pattern) Key() string { return p.render(true) }

// render writes p for a reader, or exactly (escaping literal
// metacharacters, marking variables and `**` with bytes no path holds).
func (p Pattern) render(exact bool) string {
	var b strings.Builder
	if exact && p.dotGlob {
		b.WriteByte(0)
	}
	for _, t := range p.tokens {
		switch t.kind {
		case lit:
			if exact && strings.IndexByte("\\*?[\x01\x02\x00", t.b) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(t.b)
		case one:
			b.WriteByte('?')
		case star:
			b.WriteByte('*')
		case set:
			b.WriteByte('[')
			if t.negate {
				b.WriteByte('!')
			}
			if exact {
				b.WriteString(strings.ReplaceAll(t.class, "]", "\\]"))
			} else {
				b.WriteString(t.class)
			}
			b.WriteByte(']')
		case any:
			if exact {
				b.WriteByte(1)
			} else {
				b.WriteString("…")
			}
		case deep:
			if exact {
				b.WriteByte(2)
			} else {
				b.WriteString("**")
			}
		}
	}
	return b.String()
}

// Path is the one path p names when it holds no pattern.
func (p Pattern) Path() (string, bool) {
	b := make([]byte, 0, len(p.tokens))
	for _, t := range p.tokens {
		if t.kind != lit {
			return "", false
		}
		b = append(b, t.b)
	}
	return string(b), true
}

// Variable reports a pattern holding a variable or `**`, which only the
// lexical tests judge.
func (p Pattern) Variable() bool { return hasAny(p.tokens) }
