package agents

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/codewhale-ls/codewhale-ls/gate/gitroot"
)

// Workspaces are the workspaces one agent call is judged in (docs/agents.md,
// "Workspace"). The event's cwd is the agent's, and the agent controls
// it: a session that starts in a submodule, in a directory where it ran
// `touch sub/.git`, or through a symlink to the repository would choose a
// policy by choosing where it stands. So the call is decided in every
// workspace that could claim it, and the strictest verdict stands: the
// agent's own project (Claude's and Gemini's project directory, Cursor's
// workspace root) and every git work tree from the outermost one holding
// the cwd down to the innermost, each as spelled and with symlinks
// resolved. A nested repository's policy can only add to the outer one's.
type Workspaces struct {
	// Primary is the session's project: the agent's own project directory
	// where it gives one, else the outermost work tree holding the cwd,
	// else the cwd. Its editor is asked first, and it names the call in
	// the log.
	Primary string
	// All holds Primary first, then the others, outermost first, each once.
	All []string
}

// FindWorkspaces lists the workspaces for an agent's call made in cwd (an
// absolute path), in the session whose project directories are projects,
// most telling first: the one the agent names, then the directory the
// agent started its hook in, which every agent measured starts in its
// session's directory (Codex names no project, and its event's cwd is a
// command's own workdir when it has one). Empty ones are skipped.
func FindWorkspaces(cwd string, projects ...string) (Workspaces, error) {
	if !filepath.IsAbs(cwd) {
		return Workspaces{}, fmt.Errorf("the hook event's cwd %q is not an absolute path", cwd)
	}
	var ws Workspaces
	add := func(dir string) {
		if dir != "" && !slices.Contains(ws.All, dir) {
			ws.All = append(ws.All, dir)
		}
	}
	var trees []string
	starts := append(slices.DeleteFunc(slices.Clone(projects), func(p string) bool { return p == "" }), cwd)
	for i, start := range starts {
		if !filepath.IsAbs(start) {
			return Workspaces{}, fmt.Errorf("the agent's project directory %q is not an absolute path", start)
		}
		lexical := filepath.Clean(start)
		real, err := filepath.EvalSymlinks(lexical)
		if err != nil {
			return Workspaces{}, fmt.Errorf("the agent's working directory %q cannot be resolved: %v", lexical, err)
		}
		for _, dir := range []string{lexical, real} {
			roots := workTrees(dir)
			if len(roots) == 0 {
				roots = []string{dir}
			}
			trees = append(trees, roots...)
		}
		if i == 0 && len(starts) > 1 {
			ws.Primary = lexical
			add(lexical)
			add(real)
		}
	}
	if ws.Primary == "" {
		ws.Primary = trees[0]
	}
	add(ws.Primary)
	for _, t := range trees {
		add(t)
	}
	return ws, nil
}

// workTrees are the git work trees holding dir, outermost first: every
// directory from dir up to the file system's root that has a `.git` (a
// directory, or the file of a worktree or submodule).
func workTrees(dir string) []string {
	var roots []string
	for root := gitroot.Of(dir); root != ""; root = gitroot.Of(filepath.Dir(root)) {
		roots = append(roots, root)
		if filepath.Dir(root) == root {
			break
		}
	}
	slices.Reverse(roots)
	return roots
}
