package shell

import (
	"runtime"
	"slices"
	"strings"
	"unicode"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Dialect is how a release's matchers read a rule: the deny matcher's
// wildcard and option placement (docs/codewhale/releases/0.10.0.md A.3.4,
// docs/codewhale/releases/0.10.1.md N4) and the allow matcher's literal
// leading words and python -m class (0.10.1.md N5). The zero Dialect is
// 0.9.10's.
type Dialect struct {
	// Wildcard: a rule word `*` matches any number of command words.
	Wildcard bool
	// OptionsAnywhere: a rule's option may follow the command's
	// positionals.
	OptionsAnywhere bool
	// LiteralLeading: an allow pattern matches by class only when the
	// class is spelled at the front of the command, and never when empty.
	LiteralLeading bool
	// PythonModule: the class keeps the -m of python -m.
	PythonModule bool
	// WindowsBuild: a Windows build's deny matcher, which skips `/x`
	// switches like flags and reads `rm.exe` as `rm` (0.10.0.md A.3.4);
	// Linux and macOS builds keep both literal.
	WindowsBuild bool
}

// DialectOf is release r's dialect.
func DialectOf(r release.Release) Dialect {
	if d, ok := dialects[r.Name()]; ok {
		return d
	}
	return dialectOf(r)
}

// dialects is dialectOf of each implemented release, worked out once: the
// gate asks for one twice on every call it holds (the grouping key of its
// release and of the oldest), and each flag is a version comparison.
var dialects = func() map[string]Dialect {
	m := make(map[string]Dialect, len(release.Implemented))
	for _, r := range release.Implemented {
		m[r.Version] = dialectOf(r)
	}
	return m
}()

func dialectOf(r release.Release) Dialect {
	return Dialect{
		Wildcard:        r.Has(release.DenyWildcard),
		OptionsAnywhere: r.Has(release.DenyOptionsAnywhere),
		LiteralLeading:  r.Has(release.PrefixGrantEligibility),
		PythonModule:    r.Has(release.PythonModuleClass),
		WindowsBuild:    runtime.GOOS == "windows" && r.Has(release.DenyWildcard),
	}
}

// DenyTokens is the hard-deny matcher's view of a text (docs/codewhale/execpolicy.md §3.4):
// ASCII-lowercased whitespace tokens with leading `$(`, `(`, `{` and
// trailing `)`, `}`, `;` stripped; tokens left empty are dropped.
func DenyTokens(text string) []string { return AppendDenyTokens(nil, text) }

// AppendDenyTokens appends DenyTokens(text) to dst, so that a caller's small
// buffer can hold them.
func AppendDenyTokens(dst []string, text string) []string {
	for tok := range strings.FieldsSeq(ascii.Lower(text)) {
		for strings.HasPrefix(tok, "$(") {
			tok = tok[2:]
		}
		tok = strings.TrimLeft(tok, "({")
		tok = strings.TrimRight(tok, ")};")
		if tok != "" {
			dst = append(dst, tok)
		}
	}
	return dst
}

// AppendDenyTokensAt is AppendDenyTokens that also appends to starts, for
// each token, where its whitespace field begins in text: the tokens of
// text[off:], where off is 0 or follows an ASCII space, are the tokens
// whose field begins at off or later (SuffixTokens), as a field never
// spans a space.
func AppendDenyTokensAt(dst []string, starts []int, text string) ([]string, []int) {
	lower := ascii.Lower(text)
	pos := 0
	for field := range strings.FieldsSeq(lower) {
		// The field is the first text at or after pos that is no space,
		// so its first occurrence from pos is where it begins.
		at := pos + strings.Index(lower[pos:], field)
		pos = at + len(field)
		tok := field
		for strings.HasPrefix(tok, "$(") {
			tok = tok[2:]
		}
		tok = strings.TrimLeft(tok, "({")
		tok = strings.TrimRight(tok, ")};")
		if tok != "" {
			dst = append(dst, tok)
			starts = append(starts, at)
		}
	}
	return dst, starts
}

// SuffixTokens is DenyTokens(text[off:]) from text's tokens and starts
// (AppendDenyTokensAt), when off is 0 or follows an ASCII space; ok is
// false otherwise.
func SuffixTokens(text string, tokens []string, starts []int, off int) ([]string, bool) {
	if off < 0 || off > len(text) || off > 0 && !asciiSpace(text[off-1]) {
		return nil, false
	}
	m, _ := slices.BinarySearch(starts, off)
	return tokens[m:], true
}

// asciiSpace is an ASCII byte unicode.IsSpace accepts.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// DenyMatch reports whether the hard-deny prefix rule matches target.
func (d Dialect) DenyMatch(rule, target string) bool {
	return d.DenyMatchTokens(DenyTokens(rule), DenyTokens(target))
}

// WildcardWord is the rule word that matches any number of command words
// from 0.10.0 (docs/codewhale/releases/0.10.0.md A.3.4).
const WildcardWord = "*"

// DenyMatchTokens matches token lists from DenyTokens: after the target's
// leading assignments, the rule's tokens must appear in order, the first one
// also by basename, with only flags (and one value after a flag without `=`)
// skipped in between. With Wildcard a rule word `*` matches any run of
// command words, none included, and is never the command word (the word
// after a leading `*` is compared exactly); with OptionsAnywhere a
// positional may be skipped while the rule expects an option. An empty
// rule never matches.
func (d Dialect) DenyMatchTokens(rule, target []string) bool {
	if len(rule) == 0 || !d.laterTokensPresent(rule, target) {
		return false
	}
	// Small searches (most) keep their memo on the stack.
	var small [64]bool
	var failed []bool
	if n := len(target) * len(rule); n <= len(small) {
		failed = small[:n]
	} else {
		failed = make([]bool, n)
	}
	m := denySearch{dialect: d, rule: rule, target: target, failed: failed}
	return m.from(commandStart(target), 0)
}

// DenyKey is a token every target that rule's tokens match holds (by
// laterTokensPresent): its last token after the first that is no
// wildcard, which for a prefix like `cargo test target9` is the one that
// tells it from its neighbours. ok is false when it has none. It lets a
// caller index deny rules below their first token.
func (d Dialect) DenyKey(rule []string) (key string, ok bool) {
	for i := len(rule) - 1; i >= 1; i-- {
		if !d.Wildcard || rule[i] != WildcardWord {
			return rule[i], true
		}
	}
	return "", false
}

// laterTokensPresent is a cheap necessary condition: rule tokens after the
// first only ever match equal target tokens (a wildcard matches any).
func (d Dialect) laterTokensPresent(rule, target []string) bool {
	for _, want := range rule[1:] {
		if d.Wildcard && want == WildcardWord {
			continue
		}
		found := false
		for _, tok := range target {
			if tok == want {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// commandStart skips the target's leading NAME=value tokens.
func commandStart(target []string) int {
	i := 0
	for i < len(target) && isAssignment(target[i]) {
		i++
	}
	return i
}

type denySearch struct {
	dialect      Dialect
	rule, target []string
	// failed holds the states (i, j) at i*len(rule)+j known not to lead to
	// a match; states at the end of the target are decided without it.
	failed []bool
}

func (m *denySearch) from(i, j int) bool {
	if j == len(m.rule) {
		return true
	}
	// The wildcard comes before the end-of-command test, so a trailing `*`
	// matches nothing (0.10.0.md A.3.4).
	wild := m.dialect.Wildcard && m.rule[j] == WildcardWord
	if i >= len(m.target) {
		return wild && m.from(i, j+1)
	}
	if m.failed[i*len(m.rule)+j] {
		return false
	}
	if wild {
		if m.from(i, j+1) || m.from(i+1, j) {
			return true
		}
		m.failed[i*len(m.rule)+j] = true
		return false
	}
	tok := m.target[i]
	matched := m.tokenMatches(tok, j)
	if matched && m.from(i+1, j+1) {
		return true
	}
	if m.dialect.isFlag(tok) {
		if m.from(i+1, j) {
			return true
		}
		if !strings.Contains(tok, "=") && m.from(i+2, j) {
			return true
		}
	} else if !matched && m.dialect.OptionsAnywhere && j > 0 && isOption(m.rule[j]) && m.from(i+1, j) {
		// 0.10.1.md N4: the rule's option may come after this positional.
		return true
	}
	m.failed[i*len(m.rule)+j] = true
	return false
}

// isOption reports a rule word that is an option: `-x` or `--xx`.
func isOption(word string) bool { return len(word) > 1 && word[0] == '-' }

// tokenMatches compares exactly, except that the command word (rule token
// 0, when it names no directory) also matches by basename: `/usr/bin/git`
// is `git`.
func (m *denySearch) tokenMatches(tok string, j int) bool {
	want := m.rule[j]
	if tok == want {
		return true
	}
	if j > 0 || strings.ContainsAny(want, `/\`) {
		return false
	}
	base := m.dialect.commandName(tok, want)
	return base != "" && base == want
}

// isFlag reports a command word the deny matcher may skip: `-x`, and on a
// Windows build `/x`.
func (d Dialect) isFlag(tok string) bool {
	return strings.HasPrefix(tok, "-") ||
		d.WindowsBuild && len(tok) == 2 && tok[0] == '/' && 'a' <= tok[1] && tok[1] <= 'z'
}

// commandName is a command word's basename, on a Windows build without a
// `.exe` the rule word does not have.
func (d Dialect) commandName(tok, want string) string {
	base := basename(tok)
	if d.WindowsBuild && !strings.HasSuffix(want, ".exe") {
		base = strings.TrimSuffix(base, ".exe")
	}
	return base
}

// AppendDenyHeads appends every spelling the first rule token must have
// for DenyMatchTokens(rule, target) to hold, as the dialect reads the
// target: the tokens the search can reach before matching anything, and
// their basenames (a rule opening with the wildcard has no head). It lets a
// caller index deny rules by their first token, in a small buffer of its
// own.
func (d Dialect) AppendDenyHeads(dst []string, target []string) []string {
	// From a reached flag i the search reaches token i+1 and, when the flag
	// has no `=`, token i+2; so whether i, i+1 and i+2 are reached rolls
	// along instead of living in a slice.
	reached, next, afterNext := true, false, false
	for i := commandStart(target); i < len(target); i++ {
		if tok := target[i]; reached {
			dst = append(dst, tok)
			if base := basename(tok); base != tok && base != "" {
				dst = append(dst, base)
			}
			if base := d.commandName(tok, ""); base != basename(tok) && base != "" {
				dst = append(dst, base)
			}
			if d.isFlag(tok) {
				next = true
				if !strings.Contains(tok, "=") {
					afterNext = true
				}
			}
		}
		reached, next, afterNext = next, afterNext, false
		if !reached && !next {
			break // nothing later is reached: only a reached flag reaches on
		}
	}
	return dst
}

// FoldCommandWordPath is target with a command word that names a
// directory cut to its basename (`/bin/rm x` is `rm x`, with `/` or `\`
// separators), as 0.10.1's typed deny rules also read a target
// (docs/codewhale/releases/0.10.1.md N3); ok is false when the first word
// names no directory.
func FoldCommandWordPath(target string) (string, bool) {
	trimmed := strings.TrimSpace(target)
	end := strings.IndexFunc(trimmed, unicode.IsSpace)
	if end < 0 {
		end = len(trimmed)
	}
	word := trimmed[:end]
	base := basename(word)
	if base == word || base == "" {
		return "", false
	}
	return base + trimmed[end:], true
}
