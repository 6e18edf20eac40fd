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
// absolute path), in the session whose project directory the agent gave
// as project ("" when it gave none).
func FindWorkspaces(cwd, project string) (Workspaces, error) {
	if !filepath.IsAbs(cwd) {
		return Workspaces{}, fmt.Errorf("the hook event's cwd %q is not an absolute path", cwd)
	}
	if project != "" && !filepath.IsAbs(project) {
		return Workspaces{}, fmt.Errorf("the agent's project directory %q is not an absolute path", project)
	}
	var ws Workspaces
	add := func(dir string) {
		if dir != "" && !slices.Contains(ws.All, dir) {
			ws.All = append(ws.All, dir)
		}
	}
	var trees []string
	for _, start := range []string{project, cwd} {
		if start == "" {
			continue
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
		if start == project {
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
