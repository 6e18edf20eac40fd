package hardening

import (
	"path"
	"strings"
)

// command is one simple command as bash will run it, for the readers of
// what programs run (programs.go, interp.go, awk.go, sed.go, rm.go).
type command struct {
	// words are the command's words after expansion. A word only known
	// when the line runs holds its source text ($x, $(…)); open says
	// where the first such word is.
	words []string
	// open is the index of the first word only known when the line runs,
	// len(words) when every word is known.
	open int
	// patterns are what the words from open on may be, one for each.
	patterns []Pattern
	// stdin is what the command reads on its standard input.
	stdin feed
	// depth is how deep in shells, evals and programs' code it runs.
	depth int
	// env are the variables assigned before the command's name, for it
	// alone (GIT_CONFIG_COUNT=1 … git x).
	env map[string]value
}

// feed is what a command reads on its standard input, a file or a file
// descriptor.
type feed struct {
	// text is what it reads, when known.
	text string
	// known says text is all it reads.
	known bool
	// from says where unknown input comes from ("a program's output", "a
	// file"); "" when the line gives the command no input of its own.
	from string
	// form is what each word of unknown input is like, from the program
	// that prints it (producedForm).
	form Pattern
}

// given says whether the line gives the command input (a pipe, a
// here-string or here-document, a redirection).
func (f feed) given() bool { return f.known || f.from != "" }

// name is the program's name without its directory.
func (c *command) name() string {
	return strings.TrimSuffix(path.Base(c.words[0]), ".exe")
}

// args are the command's arguments known before the line runs: those
// before the first word built at run time.
func (c *command) args() []string {
	return c.words[1:c.open]
}

// complete says whether every word of the command is known.
func (c *command) complete() bool { return c.open == len(c.words) }

// code is the text of word i as code another shell will read: the word
// itself when known; when built at run time, its source with one level
// of double quotes taken off, so `sh -c "cd $d && make"` reads
// `cd $d && make`. What a variable holds is then read in its place, as
// data: the one thing this reading cannot see is a variable holding
// shell operators, which only the running shell knows (docs/hardening.md,
// "Code built at run time").
func (c *command) code(i int) string {
	if i < c.open {
		return c.words[i]
	}
	w := c.words[i]
	if len(w) >= 2 && w[0] == '"' && w[len(w)-1] == '"' {
		return w[1 : len(w)-1]
	}
	return w
}

// codeFrom is the words from i on as code, joined with spaces as eval
// joins its arguments.
func (c *command) codeFrom(i int) string {
	parts := make([]string, 0, len(c.words)-i)
	for ; i < len(c.words); i++ {
		parts = append(parts, c.code(i))
	}
	return strings.Join(parts, " ")
}

// mayBeginOrEnd says whether a word of the pattern may begin or end with
// one of chars, blanks around it aside: a glob whose first and last
// characters are literal and not among them cannot.
func (p Pattern) mayBeginOrEnd(chars string) bool {
	g := p.Glob
	if g == "" {
		return true
	}
	first, last := g[0], g[len(g)-1]
	if first == '\\' && len(g) > 1 {
		first = g[1]
	}
	if len(g) > 1 && g[len(g)-2] == '\\' {
		last = g[len(g)-1]
	}
	blank := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' }
	return first == '*' || last == '*' || blank(first) || blank(last) ||
		strings.IndexByte(chars, first) >= 0 || strings.IndexByte(chars, last) >= 0
}
