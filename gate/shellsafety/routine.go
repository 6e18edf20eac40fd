package shellsafety

import "strings"

// RoutineAutoReview is Auto-Review's "routine shell" test (pipeline.md
// §6.3): with `&&` and `||` deleted the command holds no | & > < backtick
// or `$(`, and every segment is analyzer Safe or WorkspaceSafe, or exactly
// `git rev-parse --show-toplevel` / `git rev-parse HEAD`. A command with no
// segment at all is not routine: there is nothing to vouch for.
func RoutineAutoReview(command string) bool {
	return routineAutoReview(Parse(command))
}

func routineAutoReview(c *Command) bool {
	rest := strings.ReplaceAll(strings.ReplaceAll(c.Text(), "&&", ""), "||", "")
	if strings.ContainsAny(rest, "|&><`") || strings.Contains(rest, "$(") {
		return false
	}
	if len(c.segments) == 0 {
		return false
	}
	for _, s := range c.segments {
		if t := s.Text(); t == "git rev-parse --show-toplevel" || t == "git rev-parse HEAD" {
			continue
		}
		if l := s.Analyze(); l != Safe && l != WorkspaceSafe {
			return false
		}
	}
	return true
}
