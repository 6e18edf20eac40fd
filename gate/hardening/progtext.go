package hardening

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What awk and sed read as their program: their options (read as their
// getopt reads them), the program text the line gives them, and code
// from a file (docs/hardening.md, "Code from a file").

// hole stands in program text for a part only known when the line runs
// (`"s/a/$b/"` is `s/a/` hole `/`). No shell word holds a NUL byte.
const hole = "\x00"

// argTexts are the command's arguments as text, a part only known when
// the line runs written as hole. The words from c.open on are what the
// line gives (a word it knows) or the source of a word built when it
// runs; their patterns say which.
func argTexts(c *command) []string {
	out := append([]string(nil), c.words[1:]...)
	for i, w := range c.words[c.open:] {
		if i >= len(c.patterns) || c.patterns[i].Source != "" {
			out[c.open-1+i] = template(w)
		}
	}
	return out
}

// template is a shell word's source as text with a hole for each part
// only known when the line runs.
func template(src string) string {
	var words []*syntax.Word
	for w, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).WordsSeq(strings.NewReader(src)) {
		if err != nil {
			return hole
		}
		words = append(words, w)
	}
	if len(words) != 1 {
		return hole
	}
	text, _ := wordValue(words[0], func(syntax.Node) (string, bool) { return hole, true })
	return text
}

// option is one option a program's getopt reads.
type option struct {
	name  string // the letter or the long name
	value string
	// unsure says the option's letters are built when the line runs, so
	// it may be any option. (A word that begins with a part built when
	// the line runs is read as an operand: `sed -i 's/a/b/' "$f"`.)
	unsure bool
}

// getopt reads a program's options as GNU getopt_long does. short lists
// the letters, each followed by ':' when it takes a value and '::' when
// the value is optional (attached only); long gives each long name 0
// (no value), 1 (a value) or 2 (an optional value after '='); a long
// name may be abbreviated to a unique prefix. With permute, options may
// follow operands (GNU sed); without, the first operand ends them
// (gawk). stop lists options after which the rest are operands (gawk's
// -E).
type getopt struct {
	short   string
	long    map[string]int
	permute bool
	stop    []string
}

func (g getopt) read(args []string) (opts []option, operands []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(operands, args[i+1:]...)
		case strings.HasPrefix(a, "-"+hole):
			opts = append(opts, option{unsure: true})
			continue
		case strings.HasPrefix(a, "--"):
			name, value, attached := strings.Cut(a[2:], "=")
			name = g.longName(name)
			o := option{name: name, value: value}
			if g.long[name] == 1 && !attached && i+1 < len(args) {
				i++
				o.value = args[i]
			}
			opts = append(opts, o)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				k := strings.IndexByte(g.short, a[j])
				if k < 0 || a[j] == ':' {
					opts = append(opts, option{name: a[j : j+1]})
					continue
				}
				o := option{name: a[j : j+1]}
				valued := k+1 < len(g.short) && g.short[k+1] == ':'
				optional := valued && k+2 < len(g.short) && g.short[k+2] == ':'
				if valued {
					switch {
					case j+1 < len(a):
						o.value = a[j+1:]
					case !optional && i+1 < len(args):
						i++
						o.value = args[i]
					}
					j = len(a)
				}
				opts = append(opts, o)
			}
		default:
			if !g.permute {
				return opts, append(operands, args[i:]...)
			}
			operands = append(operands, a)
			continue
		}
		if slices.Contains(g.stop, opts[len(opts)-1].name) {
			return opts, append(operands, args[i+1:]...)
		}
	}
	return opts, operands
}

// longName is the long option a name abbreviates: itself when it is
// one, else the one option it begins.
func (g getopt) longName(name string) string {
	if _, ok := g.long[name]; ok {
		return name
	}
	found := ""
	for n := range g.long {
		if strings.HasPrefix(n, name) {
			if found != "" {
				return name // ambiguous: getopt rejects it
			}
			found = n
		}
	}
	if found == "" {
		return name
	}
	return found
}
