package patchfiles

import "strings"

// fileOps are the apply_patch envelope headers that name a file. `*** Move
// to:` is not one of them: Codewhale does not check a rename's destination.
var fileOps = []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "}

// diffSides are the unified diff file headers.
var diffSides = []string{"--- ", "+++ "}

// patchHeaders returns the paths named by the header lines of a patch, in
// order. Lines are matched naively, as Codewhale does: a hunk line that
// happens to start with `--- ` counts too.
func patchHeaders(text string) []string {
	var paths []string
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if p, ok := envelopePath(line); ok {
			paths = append(paths, p)
		} else if p, ok := diffPath(line); ok {
			paths = append(paths, p)
		}
	}
	return paths
}

func envelopePath(line string) (string, bool) {
	for _, op := range fileOps {
		if rest, ok := strings.CutPrefix(line, op); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// diffPath reads a `--- `/`+++ ` header: the name is the first
// tab-separated field (a timestamp may follow) without one `a/` or `b/`
// prefix. `/dev/null` (the missing side of an add or delete) names nothing;
// the other header of the pair supplies the file.
func diffPath(line string) (string, bool) {
	for _, side := range diffSides {
		rest, ok := strings.CutPrefix(line, side)
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "\t")
		name = strings.TrimSpace(name)
		if name == "/dev/null" {
			return "", false
		}
		for _, prefix := range []string{"a/", "b/"} {
			if stripped, ok := strings.CutPrefix(name, prefix); ok {
				return stripped, true
			}
		}
		return name, true
	}
	return "", false
}
