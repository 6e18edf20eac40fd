package shell

import (
	"strings"
)

// collapse is Rust's split_whitespace().join(" "). Text that is already in
// that form, the usual case, comes back as is instead of as a copy.
func collapse(s string) string {
	if isCollapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isCollapsed reports ASCII text whose only whitespace is single spaces
// between words. Non-ASCII text is never reported, since it may hold
// Unicode whitespace.
func isCollapsed(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && s[i+1] == ' ': // s does not end in a space
			return false
		}
	}
	return true
}

// basename is the text after the last `/` or `\`. The matchers take the
// basename of every word they look at, so it scans bytes itself rather
// than build strings.LastIndexAny's set each time; neither byte occurs
// inside a multi-byte UTF-8 sequence, so the answer is the same.
func basename(word string) string {
	for i := len(word) - 1; i >= 0; i-- {
		if word[i] == '/' || word[i] == '\\' {
			return word[i+1:]
		}
	}
	return word
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
