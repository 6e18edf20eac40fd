package agents

import (
	"path/filepath"
	"slices"
	"strings"
)

// Anchor makes every relative path of the call absolute, joined to the
// directory it means to the agent: the shell's own working directory
// field when it has one (itself relative to the agent's), else the
// agent's working directory, call.Cwd, which must be absolute. Codewhale's
// layers read a relative path as relative to the workspace (the git
// root), while the agent acts on it from where it runs: from repo/secrets,
// Gemini's write_file "key.txt" writes repo/secrets/key.txt, which a
// constitution protecting secrets/** must see (docs/agents.md, "Relative
// paths"). So the paths are joined here, before any layer looks at them:
//   - a file tool's path; a search or listing without one searches where
//     the agent runs, so it gets call.Cwd;
//   - a shell command's cwd, which it always gets, so that layer 9 reads
//     the command's relative words where they are (`cat ../../x`);
//   - the file names in a patch's headers.
//
// A path starting with `~` is left for Codewhale, which reads it as the
// home directory: the stricter reading wherever an agent does not.
func (call *Call) Anchor() {
	if call.Tool == "" || !filepath.IsAbs(call.Cwd) {
		return
	}
	in := call.Input
	switch call.Tool {
	case "exec_shell":
		dir := call.Cwd
		if cwd, ok := in["cwd"].(string); ok && strings.TrimSpace(cwd) != "" {
			dir = anchored(call.Cwd, cwd)
		}
		in["cwd"] = dir
	case "read_file", "read_media", "write_file", "edit_file":
		if p, ok := in["path"].(string); ok {
			in["path"] = anchored(call.Cwd, p)
		}
	case "list_dir", "file_search", "grep_files":
		p, _ := in["path"].(string)
		if strings.TrimSpace(p) == "" {
			p = "."
		}
		in["path"] = anchored(call.Cwd, p)
	case "apply_patch":
		for _, field := range []string{"patch", "input"} {
			if text, ok := in[field].(string); ok {
				in[field] = anchorPatch(call.Cwd, text)
			}
		}
	}
}

// anchored is path joined to dir when relative, cleaned.
func anchored(dir, path string) string {
	path = strings.TrimSpace(path)
	if filepath.IsAbs(path) || strings.HasPrefix(path, "~") {
		return path
	}
	return filepath.Join(dir, path)
}

// patchFileHeaders are the apply_patch envelope lines that name a file
// (a rename's destination included, which the agent writes too), and the
// unified diff's two sides.
var patchFileHeaders = []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "}

// anchorPatch rewrites the relative file names in a patch's header lines
// as absolute ones under dir, so that every layer reading the patch's
// targets (gate/patchfiles) reads the files the agent will change. Only
// header lines change; the rest of the patch is kept byte for byte. A
// unified diff's `--- ` line is a header only when a `+++ ` line follows
// it: elsewhere it is a removed line of a hunk, and stays as it is.
func anchorPatch(dir, text string) string {
	lines := slices.Collect(strings.Lines(text))
	body := func(i int) string { return strings.TrimRight(lines[i], "\r\n") }
	var b strings.Builder
	for i := range lines {
		line := body(i)
		switch {
		case strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(body(i+1), "+++ "),
			strings.HasPrefix(line, "+++ ") && i > 0 && strings.HasPrefix(body(i-1), "--- "):
			line = anchorDiffHeader(dir, line)
		default:
			line = anchorEnvelopeHeader(dir, line)
		}
		b.WriteString(line)
		b.WriteString(lines[i][len(body(i)):])
	}
	return b.String()
}

func anchorEnvelopeHeader(dir, line string) string {
	for _, op := range patchFileHeaders {
		if rest, ok := strings.CutPrefix(line, op); ok && strings.TrimSpace(rest) != "" {
			return op + anchored(dir, rest)
		}
	}
	return line
}

// anchorDiffHeader anchors a `--- `/`+++ ` header's name (after one `a/`
// or `b/` prefix), keeping a timestamp after a tab.
func anchorDiffHeader(dir, line string) string {
	side, rest := line[:4], line[4:]
	name, stamp, stamped := strings.Cut(rest, "\t")
	name = strings.TrimSpace(name)
	if name == "" || name == "/dev/null" || filepath.IsAbs(name) {
		return line
	}
	for _, prefix := range []string{"a/", "b/"} {
		if stripped, ok := strings.CutPrefix(name, prefix); ok {
			name = stripped
			break
		}
	}
	out := side + anchored(dir, name)
	if stamped {
		out += "\t" + stamp
	}
	return out
}
