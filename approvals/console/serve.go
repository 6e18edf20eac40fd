package console

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Repositories are the workspaces a console serves: those inside one of
// Roots, or, with no Roots, any directory of this user (a hook reaches the
// console only when no editor answered for its workspace). Either way a
// workspace directory another user owns is refused: its policy files
// are not this user's to apply.
type Repositories struct {
	// Roots are absolute and clean (CleanRoots).
	Roots []string
	UID   int
}

// CleanRoots makes each of args an absolute, clean directory path, and
// checks it is a directory this user owns.
func CleanRoots(args []string, uid int) ([]string, error) {
	var roots []string
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, fmt.Errorf("repository %q: %w", a, err)
		}
		if err := ownedDir(abs, uid); err != nil {
			return nil, err
		}
		roots = append(roots, abs)
	}
	return roots, nil
}

// Serves is nil when the console serves workspace, else why not.
func (r Repositories) Serves(workspace string) error {
	if len(r.Roots) > 0 && !r.inRoots(workspace) {
		return fmt.Errorf("it serves only %s (the repositories it was started with)", strings.Join(r.Roots, ", "))
	}
	return ownedDir(workspace, r.UID)
}

func (r Repositories) inRoots(workspace string) bool {
	for _, root := range r.Roots {
		if rel, err := filepath.Rel(root, workspace); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// ownedDir checks dir is a directory uid owns. Stat opens nothing, so a
// FIFO named as a workspace cannot make it wait.
func ownedDir(dir string, uid int) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("workspace %s is not a directory", dir)
	}
	if owner, ok := policyfile.Owner(info); !ok || owner != uid {
		return fmt.Errorf("workspace %s is not owned by this user (uid %d); its policy is not this user's to apply", dir, uid)
	}
	return nil
}

// Describe says which repositories are served, for the console's first
// lines.
func (r Repositories) Describe() string {
	if len(r.Roots) == 0 {
		return "every repository of this user that no editor serves"
	}
	return strings.Join(r.Roots, ", ")
}

// Policies reads a fresh snapshot of a workspace's files from disk for
// every call: the console watches nothing, and a decision is made on the
// files as they are when it is asked (approvals.Policies).
type Policies struct {
	Repositories Repositories
	// Options are the load options of workspace, but for its release.
	Options func(workspace string) config.Options
	// Release chooses the Codewhale release for workspace, ending by
	// ctx's end (--codewhale-version, else the codewhale on PATH).
	Release func(ctx context.Context, workspace string) (release.Choice, error)
}

// Snapshot loads workspace's policy now; a workspace not served, or a
// release that cannot be chosen, is a refusal (a deny).
func (p Policies) Snapshot(ctx context.Context, workspace string) (*config.Snapshot, string) {
	if err := p.Repositories.Serves(workspace); err != nil {
		return nil, "The approval console does not serve this workspace: " + err.Error()
	}
	choice, err := p.Release(ctx, workspace)
	if err != nil {
		return nil, "The approval console could not choose the Codewhale release to decide as: " + err.Error()
	}
	opts := p.Options(workspace)
	opts.Workspace, opts.Release = workspace, choice.Implementation()
	return config.Load(opts), ""
}

// Reload does nothing: every Snapshot is read afresh.
func (Policies) Reload() {}

// ErrNotTerminal is the console's refusal to run without a terminal.
var ErrNotTerminal = errors.New("standard input is not a terminal: the approval console reads a person's keys, so it runs only in a terminal (or a tmux pane)")
