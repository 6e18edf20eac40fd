package repolaw

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Find returns the constitution Codewhale would read for workspace: the
// first `.codewhale/constitution.json` that exists (as a directory entry,
// so a broken file or symlink still ends the search) in the workspace or
// an ancestor, up to and including the git root, or up to `/` when there
// is no git root.
func Find(workspace string) (path string, found bool) {
	for _, candidate := range Candidates(workspace) {
		if _, err := os.Lstat(candidate); err == nil {
			return candidate, true
		}
	}
	return "", false
}

// Candidates are the paths Find looks at, in order: every file whose
// appearance could change the law of workspace.
func Candidates(workspace string) []string {
	dir, err := filepath.Abs(workspace)
	if err != nil {
		return nil
	}
	stop := gitRoot(dir)
	var out []string
	for {
		out = append(out, filepath.Join(dir, filepath.FromSlash(ConstitutionPath)))
		parent := filepath.Dir(dir)
		if dir == stop || parent == dir {
			return out
		}
		dir = parent
	}
}

// gitRoot returns the nearest directory from dir upwards that is a git
// root, or "" when there is none.
func gitRoot(dir string) string {
	for {
		if isGitRoot(dir) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// isGitRoot: `.git` is a directory holding HEAD, or a file that starts with
// `gitdir:` (a worktree or submodule).
func isGitRoot(dir string) bool {
	dotGit := filepath.Join(dir, ".git")
	info, err := os.Stat(dotGit)
	switch {
	case err != nil:
		return false
	case info.IsDir():
		head, err := os.Stat(filepath.Join(dotGit, "HEAD"))
		return err == nil && head.Mode().IsRegular()
	case info.Mode().IsRegular():
		data, err := policyfile.Read(dotGit)
		return err == nil && bytes.HasPrefix(data, []byte("gitdir:"))
	}
	return false
}

// Load reads the constitution at path as Codewhale does and returns the
// bytes it read. When open, buffer (an editor's text) stands in for the
// contents, but what the file is still comes from disk: a symlink or a
// non-regular file is ignored either way.
func Load(path string, buffer []byte, open bool) (Law, []problem.Problem, []byte) {
	law, problems, src := load(path, buffer, open)
	for i := range problems {
		problems[i].File = path
	}
	return law, problems, src
}

func load(path string, buffer []byte, open bool) (Law, []problem.Problem, []byte) {
	info, err := os.Lstat(path)
	switch {
	case err != nil && !open:
		return Law{}, []problem.Problem{ignoredProblem(problem.Span{}, fmt.Sprintf("it cannot be read: %v", err))}, nil
	case err != nil: // a buffer for a file not saved yet
	case info.Mode()&os.ModeSymlink != 0:
		return Law{}, []problem.Problem{ignoredProblem(problem.Span{}, "it is a symlink")}, buffer
	case !info.Mode().IsRegular():
		return Law{}, []problem.Problem{ignoredProblem(problem.Span{}, "it is not a regular file")}, buffer
	}
	data := buffer
	if !open {
		if info.Size() > maxFileSize {
			return Law{}, []problem.Problem{tooLarge(info.Size())}, nil
		}
		if data, err = policyfile.Read(path); err != nil {
			return Law{}, []problem.Problem{ignoredProblem(problem.Span{}, fmt.Sprintf("it cannot be read: %v", err))}, nil
		}
	}
	law, problems := Parse(data)
	return law, problems, data
}
