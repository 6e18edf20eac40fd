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
	roots := distinct(opened)
	if filepath.IsAbs(requested) && slices.Contains(roots, filepath.Clean(requested)) {
		return ""
	}
	list := "it opened none"
	if len(roots) > 0 {
		list = strings.Join(roots, ", ")
	}
	return "codewhale-ls refuses this call: its workspace " + requested + " is not one the editor opened (" + list + ")"
}

// distinct is paths cleaned, sorted, each once; relative and empty paths
// are dropped, as no request can name them.
func distinct(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Place is what decides the workspace a policy file belongs to, besides
// the file's path.
type Place struct {
	Folders []string // the editor's workspace folders
	Named   string   // the workspace the client named, "" when none
	Home    string   // the user's home: its .codewhale/ holds the user's own files
	// GitRoot is the root of the git repository holding dir, "" when
	// none. It reads the disk.
	GitRoot func(dir string) string
}

// Of is the workspace the policy file at path is linted in: the deepest
// folder holding it, else the workspace the client named, else (a client
// that named none, as Neovim without a root) the file's git root, else,
// for a project file, the directory holding its .codewhale/, as
// `codewhale-ls check` run there would. It may read the disk.
func (p Place) Of(path string) string {
	if folder := deepestHolding(p.Folders, path); folder != "" {
		return folder
	}
	if p.Named != "" {
		return p.Named
	}
	if git := p.GitRoot(filepath.Dir(path)); git != "" {
		return git
	}
	return p.projectRoot(path)
}

// deepestHolding is the folder of folders that path lies in, the deepest
// when they nest; "" when none holds it.
func deepestHolding(folders []string, path string) string {
	best := ""
	for _, f := range folders {
		if rel, err := filepath.Rel(f, path); err == nil && filepath.IsLocal(rel) && len(f) > len(best) {
			best = f
		}
	}
	return best
}

// projectRoot is the workspace a project policy file names by its place,
// <workspace>/.codewhale/<file> (or the legacy .deepseek/config.toml);
// "" for any other path, and for the user's home, whose .codewhale/ holds
// the user's own files (Codewhale never reads an overlay there).
func (p Place) projectRoot(path string) string {
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case ".codewhale", ".deepseek":
	default:
		return ""
	}
	ws := filepath.Dir(dir)
	if p.Home != "" && filepath.Clean(p.Home) == ws {
		return ""
	}
	return ws
}

// Default is the workspace a request that names none runs in once the
// editor's folders are folders: current while it is still one of them,
// else the only folder left, else none (the request must name one). A
// removed folder must not stay the default: a request would run in, or
// be refused for, a workspace the editor closed.
func Default(current string, folders []string) string {
	if current != "" && slices.Contains(folders, current) {
		return current
	}
	if len(folders) == 1 {
		return folders[0]
	}
	return ""
}

// OwnFiles are those of a workspace's policy file places (paths: where
// its config, permissions, overlay, hooks and constitution would be) that
// lie inside the workspace at root: a repository's .codewhale/, or the
// user's own files when the workspace is the Codewhale home or holds it.
// A workspace where none exists costs no lint work (docs/architecture.md,
// "Per-workspace state"); the user's files elsewhere are linted in the
// workspace that holds them.
func OwnFiles(root string, paths []string) []string {
	var own []string
	for _, p := range distinct(paths) {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			own = append(own, p)
		}
	}
	return own
}
