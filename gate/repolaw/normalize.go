package repolaw

import (
	"slices"
	"strings"
)

// normalizeTarget turns a raw target into the workspace-relative form the
// globs are matched against (docs/codewhale/pipeline.md §7.2). It is lexical only. Its odd
// corners are Codewhale's: `..` with nothing to pop is kept as a literal
// component, a later `..` pops that one again (`../../x` → `x`), and an
// absolute path outside the workspace simply loses its leading `/`
// (`/etc/passwd` → `etc/passwd`). The workspace is compared component by
// component, as Rust's Path::strip_prefix does, and only when absolute.
func normalizeTarget(workspace, raw string) string {
	target := strings.ReplaceAll(raw, `\`, "/")
	parts := components(target)
	if strings.HasPrefix(target, "/") && strings.HasPrefix(workspace, "/") {
		if ws := components(workspace); len(ws) <= len(parts) && slices.Equal(parts[:len(ws)], ws) {
			parts = parts[len(ws):]
		}
	}
	var out []string
	for _, p := range parts {
		switch {
		case p != "..":
			out = append(out, p)
		case len(out) > 0:
			out = out[:len(out)-1]
		default:
			out = append(out, "..")
		}
	}
	return strings.Join(out, "/")
}

// components splits a slash path, dropping empty and `.` components.
func components(path string) []string {
	var out []string
	for _, p := range strings.Split(path, "/") {
		if p != "" && p != "." {
			out = append(out, p)
		}
	}
	return out
}
