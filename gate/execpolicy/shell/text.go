package shell

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// lower folds ASCII letters only; strings.ToLower would also fold `É`, which
// Codewhale leaves alone (execpolicy.md §6.3).
func lower(s string) string { return tool.LowerASCII(s) }

// collapse is Rust's split_whitespace().join(" ").
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// basename is the text after the last `/` or `\`.
func basename(word string) string {
	return word[strings.LastIndexAny(word, `/\`)+1:]
}

// isAssignment reports a `NAME=value` word: the name is non-empty, does not
// start with `-` and is ASCII letters, digits and `_` only (so `1X=y` counts).
func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	if !ok || name == "" || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// isScalar reports a wrapper operand such as `5`, `1.5s` or `10m`.
func isScalar(word string) bool {
	number := strings.TrimRight(word, "smhd")
	if number == "" {
		return false
	}
	for i := 0; i < len(number); i++ {
		if c := number[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
