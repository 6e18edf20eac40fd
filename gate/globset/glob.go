// Package globset matches paths the way Rust's `globset` crate does with its
// default options, because Codewhale's repository law (docs/codewhale/pipeline.md §7.1)
// compiles its protected paths with those defaults: matching is
// case-sensitive, `*` and `?` also cross `/`, `**` spans any depth, `[...]`
// is a class (`[!...]`/`[^...]` negated), `{a,b}` is an alternation (nested
// groups allowed) and a backslash escapes the next character.
package globset

import (
	"fmt"
	"unicode/utf8"
)

// Glob is one compiled pattern.
type Glob struct {
	pattern  string
	tokens   []token
	anything bool // the whole pattern is `**`, which globset special-cases to match every path
}

// Compile parses pattern, reporting the same patterns as invalid that
// globset rejects (unclosed `[` or `{`, unopened `}`, a reversed range, a
// dangling backslash).
func Compile(pattern string) (*Glob, error) {
	if !utf8.ValidString(pattern) {
		// Rust patterns are &str; such a glob cannot exist there.
		return nil, fmt.Errorf("glob %q is not valid UTF-8", pattern)
	}
	tokens, err := parse(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid glob %q: %w", pattern, err)
	}
	tokens = joinLiterals(tokens)
	return &Glob{
		pattern:  pattern,
		tokens:   tokens,
		anything: len(tokens) == 1 && tokens[0].kind == recursivePrefix,
	}, nil
}

// joinLiterals merges runs of literal tokens (the parser makes one per
// character): matching then steps once per run, not once per byte.
func joinLiterals(tokens []token) []token {
	out := tokens[:0:0]
	for _, t := range tokens {
		if t.kind == alternates {
			for i, b := range t.branches {
				t.branches[i] = joinLiterals(b)
			}
		}
		if n := len(out); n > 0 && t.kind == literal && out[n-1].kind == literal {
			out[n-1].bytes += t.bytes
			continue
		}
		out = append(out, t)
	}
	return out
}

// String returns the pattern as written.
func (g *Glob) String() string { return g.pattern }

// Match reports whether the whole of path matches. Paths are compared byte
// by byte, with no separator normalisation, as globset does on Unix.
func (g *Glob) Match(path string) bool {
	if g.anything {
		return true
	}
	start := make([]bool, len(path)+1)
	start[0] = true
	return advance(g.tokens, path, start)[len(path)]
}
