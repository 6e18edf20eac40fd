package watch

import (
	"os"
	"strings"
)

// isBelow reports whether path is strictly inside dir. Both must be clean.
func isBelow(path, dir string) bool {
	if len(path) <= len(dir) || !strings.HasPrefix(path, dir) {
		return false
	}
	// A clean dir ends in a separator only when it is the root.
	return strings.HasSuffix(dir, string(os.PathSeparator)) || path[len(dir)] == os.PathSeparator
}

// stepToward returns the child of from that lies on the way to to, or "" when
// to is not strictly inside from. Both must be clean.
func stepToward(from, to string) string {
	if !isBelow(to, from) {
		return ""
	}
	rest := strings.TrimPrefix(to[len(from):], string(os.PathSeparator))
	first, _, _ := strings.Cut(rest, string(os.PathSeparator))
	return strings.TrimSuffix(from, string(os.PathSeparator)) + string(os.PathSeparator) + first
}
