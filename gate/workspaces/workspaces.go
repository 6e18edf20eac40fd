// Package workspaces decides which workspace an agent's request may name.
// The workspace chooses the policy that judges the call (the project
// overlay, the project hooks, workspace-scoped permission rules, the
// constitution), so the agent being judged must not be free to pick it: a
// directory below a repository has its own, perhaps looser, `.codewhale/`.
package workspaces

import (
	"path/filepath"
	"slices"
	"strings"
)

// Refusal says why a request may not run in requested, or "" when it may:
// requested must be, as a cleaned absolute path, exactly one of opened (the
// editor's workspace folders and the workspaces of the policy files it
// opened). Paths are compared, never resolved: a directory inside a folder
// is refused, and so is a symlink to a folder unless it is itself one.
func Refusal(requested string, opened []string) string {
	roots := Distinct(opened)
	if filepath.IsAbs(requested) && slices.Contains(roots, filepath.Clean(requested)) {
		return ""
	}
	list := "it opened none"
	if len(roots) > 0 {
		list = strings.Join(roots, ", ")
	}
	return "codewhale-ls refuses this call: its workspace " + requested + " is not one the editor opened (" + list + ")"
}

// Distinct is paths cleaned, sorted, each once; relative and empty paths
// are dropped, as no request can name them.
func Distinct(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
