package execpolicy

import (
	"runtime"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// HostFoldsCase reports whether Codewhale, built for this OS, compares path
// rules case-insensitively (Windows and macOS builds do).
func HostFoldsCase() bool {
	return runtime.GOOS == "windows" || runtime.GOOS == "darwin"
}

// normPath is a parsed path (§4.1): a root ("/", "c:" or "" for relative)
// and its components, with no `.`, empty or `..` component.
type normPath struct {
	root  string
	parts []string
}

// parsePath is the shared path parser; ok is false for an empty value, a
// drive-relative `C:foo` and any `..` component (never collapsed). fold
// lower-cases ASCII letters throughout; without it only a drive letter is
// lower-cased.
func parsePath(value string, fold bool) (normPath, bool) {
	s := strings.ReplaceAll(strings.TrimSpace(value), `\`, "/")
	if fold {
		s = ascii.Lower(s)
	} else if hasDriveLetter(s) {
		s = ascii.Lower(s[:1]) + s[1:]
	}
	if s == "" {
		return normPath{}, false
	}
	var p normPath
	rest := s
	switch {
	case s[0] == '/':
		p.root, rest = "/", s[1:]
	case hasDriveLetter(s) && len(s) > 2 && s[2] == '/':
		p.root, rest = s[:2], s[3:]
	case hasDriveLetter(s):
		return normPath{}, false
	}
	for _, part := range strings.Split(rest, "/") {
		switch part {
		case "", ".":
		case "..":
			return normPath{}, false
		default:
			p.parts = append(p.parts, part)
		}
	}
	return p, true
}

func hasDriveLetter(s string) bool {
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// relativeTo is §4.2 on parsed values: a rooted path must sit inside the
// (rooted) workspace; a relative one is taken as is. "" is the workspace
// root itself.
func (p normPath) relativeTo(workspace normPath) (string, bool) {
	if workspace.root == "" {
		return "", false
	}
	if p.root == "" {
		return strings.Join(p.parts, "/"), true
	}
	if p.root != workspace.root || len(p.parts) < len(workspace.parts) {
		return "", false
	}
	for i, part := range workspace.parts {
		if p.parts[i] != part {
			return "", false
		}
	}
	return strings.Join(p.parts[len(workspace.parts):], "/"), true
}

// RelPath is the workspace-relative form of value (§4.2) that path rules
// compare; ok is false when either side is invalid, the workspace is
// relative, or value lies outside it.
func RelPath(value, workspace string, fold bool) (string, bool) {
	p, ok := parsePath(value, fold)
	if !ok {
		return "", false
	}
	w, ok := parsePath(workspace, fold)
	if !ok {
		return "", false
	}
	return p.relativeTo(w)
}

// WorkspaceScope normalises a rule's workspace or a session cwd (§4.3):
// POSIX paths keep their case on every platform, `C:/…` paths are
// lower-cased whole; relative paths, `/`, `C:/` and `..` are invalid.
func WorkspaceScope(value string) (string, bool) {
	s := strings.ReplaceAll(strings.TrimSpace(value), `\`, "/")
	var root, rest string
	switch {
	case s == "":
		return "", false
	case s[0] == '/':
		root, rest = "", s[1:]
	case hasDriveLetter(s) && len(s) > 2 && s[2] == '/':
		s = ascii.Lower(s)
		root, rest = s[:2], s[3:]
	default:
		return "", false
	}
	clean, named := true, false
	for part := range strings.SplitSeq(rest, "/") {
		switch part {
		case "", ".":
			clean = false
		case "..":
			return "", false
		default:
			named = true
		}
	}
	switch {
	case !named:
		return "", false
	case clean: // already normal, the usual case for a session cwd
		return s, true
	}
	var b strings.Builder
	b.WriteString(root)
	for part := range strings.SplitSeq(rest, "/") {
		if part != "" && part != "." {
			b.WriteByte('/')
			b.WriteString(part)
		}
	}
	return b.String(), true
}

// RootedPath is a path as the rooted channel compares it
// (docs/codewhale/releases/0.10.0.md A.2.2): trimmed, `\` made `/`, and
// ASCII-lowercased when fold; nothing else is normalised (`//`, `/./` and
// a trailing `/` stay, `~` is not expanded). rooted says whether that form
// starts with `/`, `~/` or a drive `L:/`; `~` alone and `~user/…` are
// relative. The engine and the lints read rule paths through it.
func RootedPath(value string, fold bool) (form string, rooted bool) {
	form = strings.ReplaceAll(strings.TrimSpace(value), `\`, "/")
	if fold {
		form = ascii.Lower(form)
	}
	rooted = strings.HasPrefix(form, "/") || strings.HasPrefix(form, "~/") ||
		hasDriveLetter(form) && len(form) > 2 && form[2] == '/'
	return form, rooted
}

// HasDotDot reports a `..` component in a path whose separators are `/`,
// such as RootedPath's form: a path Codewhale does not resolve.
func HasDotDot(s string) bool {
	for part := range strings.SplitSeq(s, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}
