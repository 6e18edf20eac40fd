package install

import (
	"fmt"
	"strings"
)

// contextLines is how many unchanged lines frame the change, as diff -u.
const contextLines = 3

// Diff is a unified diff from old to new, labelled with name, or "" when
// they are equal. Install and Uninstall change one region at a time, so
// one hunk spans everything between the first and the last changed line.
func Diff(name string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	a, b := splitLines(string(old)), splitLines(string(new))
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	start := max(prefix-contextLines, 0)
	endA, endB := min(len(a)-suffix+contextLines, len(a)), min(len(b)-suffix+contextLines, len(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", name, name)
	fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(start, endA-start), hunkRange(start, endB-start))
	for _, l := range a[start:prefix] {
		out.WriteString(" " + l)
	}
	for _, l := range a[prefix : len(a)-suffix] {
		out.WriteString("-" + l)
	}
	for _, l := range b[prefix : len(b)-suffix] {
		out.WriteString("+" + l)
	}
	for _, l := range a[len(a)-suffix : endA] {
		out.WriteString(" " + l)
	}
	return out.String()
}

// hunkRange is diff's "start,count", 1-based (0 for an empty side).
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// splitLines keeps each line's ending; a last line without one gets the
// marker diff uses.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	return lines
}
