package shellsafety

import "strings"

// RoutineAutoReview is Auto-Review's "routine shell" test (pipeline.md
// §6.3): with `&&` and `||` deleted the command holds no | & > < backtick
// or `$(`, and every segment is analyzer Safe or WorkspaceSafe, or exactly
// `git rev-parse --show-toplevel` / `git rev-parse HEAD`. A command with no
// segment at all is not routine: there is nothing to vouch for.
func RoutineAutoReview(command string) bool {
	rest := strings.ReplaceAll(strings.ReplaceAll(command, "&&", ""), "||", "")
	if strings.ContainsAny(rest, "|&><`") || strings.Contains(rest, "$(") {
		return false
	}
	segments := Segments(command)
	if len(segments) == 0 {
		return false
	}
	for _, s := range segments {
		if s == "git rev-parse --show-toplevel" || s == "git rev-parse HEAD" {
			continue
		}
		if l := Analyze(s); l != Safe && l != WorkspaceSafe {
			return false
		}
	}
	return true
}
