package shellsafety

import "strings"

// Segments splits a command on `&&`, `||` and `;` exactly as Codewhale's
// auto-review does (pipeline.md §6.3): on the raw text, quotes or not,
// trimmed, empty pieces dropped. Pipes and `&` stay inside a segment.
func Segments(command string) []string {
	var out []string
	start := 0
	add := func(end int) {
		if s := strings.TrimSpace(command[start:end]); s != "" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(command); {
		rest := command[i:]
		switch {
		case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "||"):
			add(i)
			i += 2
			start = i
		case rest[0] == ';':
			add(i)
			i++
			start = i
		default:
			i++
		}
	}
	add(len(command))
	return out
}
