package shellsafety

import "strings"

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
