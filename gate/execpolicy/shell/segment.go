package shell

import "strings"

// Segments is the naive chain splitter (docs/codewhale/execpolicy.md §3.1): `&&`, `||`, `&`,
// `|`, `;` and newline separate pieces, with quotes, escapes and
// substitutions ignored; pieces are trimmed and empty ones dropped.
//
// Codewhale rewrites the operators to newlines and splits with Rust's
// str::lines, which drops a \r before \n but keeps a lone \r. Splitting on
// the operator characters directly gives the same pieces: a run of operators
// only yields empty pieces, and the dropped \r is whitespace the trim removes.
func Segments(command string) []string {
	var out []string
	for piece, rest, ok := cutSegment(command); ok; piece, rest, ok = cutSegment(rest) {
		out = append(out, piece)
	}
	return out
}

// cutSegment is the first non-empty trimmed piece of s and the text after
// its operator; ok is false when no piece is left. It lets callers walk the
// segments without collecting them.
func cutSegment(s string) (piece, rest string, ok bool) {
	for s != "" {
		if i := indexChainOperator(s); i >= 0 {
			piece, s = s[:i], s[i+1:]
		} else {
			piece, s = s, ""
		}
		if piece = strings.TrimSpace(piece); piece != "" {
			return piece, s, true
		}
	}
	return "", "", false
}

// Chained reports whether the naive splitter finds more than one piece.
func Chained(command string) bool {
	_, rest, ok := cutSegment(command)
	if ok {
		_, _, ok = cutSegment(rest)
	}
	return ok
}

// indexChainOperator is the first operator byte in s, or -1. The operators
// are ASCII, which UTF-8 never reuses inside a multi-byte character, so
// bytes find exactly the runes strings.FieldsFunc would split at.
func indexChainOperator(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&', '|', ';', '\n':
			return i
		}
	}
	return -1
}
