package hardening

import (
	"strings"
)

// Pattern is what one word of a command may be when part of it is only
// known when the line runs: `"$d/x"` is the glob `*/x`.
type Pattern struct {
	// Glob matches the values the word may take (globMatch).
	Glob string
	// Many says the word is unquoted where it expands, so it may become
	// any number of words, or none.
	Many bool
	// Source is the word as written.
	Source string
	// Form narrows what each word may be, from the program that prints it
	// (producedForm): "" any text.
	Form Form
}

// Form is what every word a program prints is like.
type Form int

const (
	// AnyText may be any word.
	AnyText Form = iota
	// NameOnly holds no slash: a file name in a directory (ls), a number
	// (seq).
	NameOnly
	// RelativePath does not begin with a slash: paths git prints.
	RelativePath
	// NotOption does not begin with a dash: paths find prints from a
	// starting point it was given (find takes none beginning with one).
	NotOption
)

// matches says whether w may be a word of the pattern.
func (p Pattern) matches(w string) bool {
	switch {
	case p.Form == NameOnly && strings.Contains(w, "/"):
		return false
	case p.Form == RelativePath && strings.HasPrefix(w, "/"):
		return false
	case p.Form == NotOption && strings.HasPrefix(w, "-"):
		return false
	}
	return globMatch(p.Glob, w)
}

// globEscape escapes text for a Glob.
func globEscape(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Instantiate is a command an open finding may become that a rule of
// these words would match as a prefix (`git push` for `git $(…)` and the
// rule `git push`), and whether there is one. The engine then judges that
// command, so the rule's own matching decides (gate/layer_hardening.go).
func (f Finding) Instantiate(rule []string) (string, bool) {
	if len(f.Open) == 0 || f.Command == "" {
		return "", false
	}
	known := wordsOf(f.Command)
	if len(rule) <= len(known) {
		// The engine judges the known words themselves (Command).
		return "", false
	}
	for i, w := range known {
		if rule[i] != w {
			return "", false
		}
	}
	steps := 0
	taken, ok := fill(f.Open, rule[len(known):], &steps)
	if !ok {
		return "", false
	}
	return join(append(known, taken...)), true
}

// fill is the rule's words the patterns may become, in order, and
// whether they may become them all (the command may go on past the
// rule's words: rules match a prefix). steps bounds the search.
func fill(pats []Pattern, rule []string, steps *int) ([]string, bool) {
	if *steps++; *steps > 1<<12 {
		return nil, false
	}
	if len(rule) == 0 {
		return nil, true
	}
	if len(pats) == 0 {
		return nil, false
	}
	p := pats[0]
	if !p.Many {
		if !p.matches(rule[0]) {
			return nil, false
		}
		rest, ok := fill(pats[1:], rule[1:], steps)
		return append([]string{rule[0]}, rest...), ok
	}
	// Any number of words, each matching the glob.
	for k := 0; k <= len(rule); k++ {
		if k > 0 && !p.matches(rule[k-1]) {
			break
		}
		if rest, ok := fill(pats[1:], rule[k:], steps); ok {
			return append(append([]string(nil), rule[:k]...), rest...), true
		}
	}
	return nil, false
}

// globMatch says whether s matches a Glob: `*` any text (slashes too),
// `\\` escaping the character after it. Greedy with one backtrack point,
// so it costs at most len(glob)×len(s).
func globMatch(glob, s string) bool {
	// Unescape into runes of the pattern, a star marked as -1.
	var pat []int
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '*':
			pat = append(pat, -1)
		case '\\':
			if i+1 < len(glob) {
				i++
			}
			fallthrough
		default:
			pat = append(pat, int(glob[i]))
		}
	}
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && pat[p] == int(s[i]):
			p++
			i++
		case p < len(pat) && pat[p] == -1:
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == -1 {
		p++
	}
	return p == len(pat)
}

// wordsOf splits a command Inspect joined back into its words.
func wordsOf(command string) []string {
	// join quotes as xargs reads: single quotes, and a backslash outside
	// them.
	return xargsWords(command)
}
