package shellsafety

import "strings"

// appendSegments appends the segments of command to out.
func appendSegments(out []string, command string) []string {
	start := 0
	add := func(end int) {
		if s := strings.TrimSpace(command[start:end]); s != "" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(command); {
		width := separatorAt(command, i)
		if width == 0 {
			i++
			continue
		}
		add(i)
		i += width
		start = i
	}
	add(len(command))
	return out
}

// separatorAt is the length of the `&&`, `||` or `;` at command[i], or 0.
func separatorAt(command string, i int) int {
	switch c := command[i]; {
	case c == ';':
		return 1
	case (c == '&' || c == '|') && i+1 < len(command) && command[i+1] == c:
		return 2
	}
	return 0
}
