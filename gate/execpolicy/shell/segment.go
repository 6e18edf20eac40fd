package shell

import "strings"

// Segments is the naive chain splitter (execpolicy.md §3.1): `&&`, `||`, `&`,
// `|`, `;` and newline separate pieces, with quotes, escapes and
// substitutions ignored; pieces are trimmed and empty ones dropped.
//
// Codewhale rewrites the operators to newlines and splits with Rust's
// str::lines, which drops a \r before \n but keeps a lone \r. Splitting on
// the operator characters directly gives the same pieces: a run of operators
// only yields empty pieces, and the dropped \r is whitespace the trim removes.
func Segments(command string) []string {
	var out []string
	for _, piece := range strings.FieldsFunc(command, isChainOperator) {
		if piece = strings.TrimSpace(piece); piece != "" {
			out = append(out, piece)
		}
	}
	return out
}

func isChainOperator(r rune) bool {
	return r == '&' || r == '|' || r == ';' || r == '\n'
}

// Chained reports whether the naive splitter finds more than one piece.
func Chained(command string) bool { return len(Segments(command)) > 1 }
