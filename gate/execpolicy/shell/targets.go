package shell

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// DenyTargets is every text a deny rule is matched against (docs/codewhale/execpolicy.md
// §3.3): the trimmed command, its naive segments, then the expander lines,
// each once and none empty. Over-splitting only adds candidates.
func DenyTargets(command string) []string { return AppendDenyTargets(nil, command) }

// AppendDenyTargets appends DenyTargets(command) to dst, so that a caller's
// small buffer can hold them. A plain command's targets are substrings of
// it and cost nothing to find.
func AppendDenyTargets(dst []string, command string) []string {
	if isPlain(command) {
		return appendPlainTargets(dst, command)
	}
	return appendExpandedTargets(dst, command)
}

func appendExpandedTargets(dst []string, command string) []string {
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			dst = append(dst, t)
		}
	}
	add(strings.TrimSpace(command))
	for _, s := range Segments(command) {
		add(s)
	}
	for _, line := range Expand(command) {
		add(line)
	}
	return dst
}

// appendPlainTargets is appendExpandedTargets for a plain command, whose
// expander lines are the trimmed command and its segments again.
func appendPlainTargets(dst []string, command string) []string {
	start := len(dst)
	if trimmed := strings.TrimSpace(command); trimmed != "" {
		dst = append(dst, trimmed)
	}
	for piece, rest, ok := cutSegment(command); ok; piece, rest, ok = cutSegment(rest) {
		if !slices.Contains(dst[start:], piece) {
			dst = append(dst, piece)
		}
	}
	return dst
}

// maxPlainSegments bounds the plain path, whose duplicate check is
// quadratic; longer chains take the general one.
const maxPlainSegments = 16

// isPlain reports a command in which the expander finds exactly its naive
// segments: plain bytes only (isPlainByte), words separated by single
// spaces (so a segment is its words joined), and no segment opening with a
// word the expander looks through.
func isPlain(command string) bool {
	for i := 0; i < len(command); i++ {
		if !isPlainByte(command[i]) {
			return false
		}
	}
	n := 0
	for piece, rest, ok := cutSegment(command); ok; piece, rest, ok = cutSegment(rest) {
		first, _, _ := strings.Cut(piece, " ")
		if n++; n > maxPlainSegments || strings.Contains(piece, "  ") || looksThrough(first) {
			return false
		}
	}
	return true
}

// looksThrough reports a first word after which the expander may emit a
// shorter line or expand a payload: an assignment, a wrapper, a shell or
// eval, a flag or a scalar (the words stripWrappers and wrapperHead skip or
// stop at).
func looksThrough(word string) bool {
	base := ascii.Lower(basename(word))
	return isAssignment(word) || passthroughWrappers[base] || shellNames[base] || base == "eval" ||
		isScalar(word) || strings.HasPrefix(word, "-")
}

// isPlainByte reports printable ASCII or a newline, except the characters
// that let the expander find text the naive segments do not show: quotes,
// escapes, substitutions and grouping. Without `(`, `{` and `'`, a `$` is a
// literal to the tokenizer; an `=` only matters in a leading assignment,
// which looksThrough catches. Non-ASCII and control bytes are excluded to
// stay clear of Unicode whitespace, which the segment trim removes and the
// tokenizer keeps.
func isPlainByte(c byte) bool {
	switch c {
	case '"', '\'', '`', '\\', '(', ')', '{', '}':
		return false
	}
	return c == '\n' || ' ' <= c && c <= '~'
}
