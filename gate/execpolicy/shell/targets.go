package shell

import "strings"

// DenyTargets is every text a deny rule is matched against (execpolicy.md
// §3.3): the trimmed command, its naive segments, then the expander lines,
// each once and none empty. Over-splitting only adds candidates.
func DenyTargets(command string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	add(strings.TrimSpace(command))
	for _, s := range Segments(command) {
		add(s)
	}
	for _, line := range Expand(command) {
		add(line)
	}
	return out
}
