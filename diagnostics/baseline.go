package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// gitTimeout bounds the one git call per opened file: a hung or slow git
// must not hold up opening a document; the disk contents serve instead.
const gitTimeout = 2 * time.Second

// Baselines remembers, per file, the version edits are compared with for
// CW500: the git HEAD version of the file, else its disk contents when it
// was opened. Open looks it up in the background (git may take up to
// gitTimeout) and Get waits for that lookup, so a caller on a message
// loop is never held up by git. Safe for concurrent use; Close ends the
// lookups still running.
type Baselines struct {
	// head is the file's version at git HEAD; ok = false when it has none.
	head func(ctx context.Context, path string) (src []byte, ok bool)
	ctx  context.Context // ends at Close, and with it every lookup
	stop context.CancelFunc

	lookups sync.WaitGroup
	mu      sync.Mutex
	files   map[string]*baseline
}

// baseline is one file's baseline, known once ready is closed.
type baseline struct {
	ready chan struct{}
	src   []byte
	ok    bool
}

// NewBaselines returns an empty set that asks git for HEAD versions.
func NewBaselines() *Baselines {
	return newBaselines(func(ctx context.Context, path string) ([]byte, bool) {
		return committedVersion(ctx, "HEAD", filepath.Dir(path), filepath.Base(path))
	})
}

func newBaselines(head func(context.Context, string) ([]byte, bool)) *Baselines {
	b := &Baselines{head: head, files: map[string]*baseline{}}
	b.ctx, b.stop = context.WithCancel(context.Background())
	return b
}

// Open starts recording the baseline of path (git HEAD, else the disk
// contents now) and returns at once. A file in neither has no baseline:
// everything in it is new. After Close it records nothing.
func (b *Baselines) Open(path string) {
	entry := &baseline{ready: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx.Err() != nil {
		return
	}
	b.files[path] = entry
	b.lookups.Add(1)
	go func() {
		defer b.lookups.Done()
		defer close(entry.ready)
		// The disk first: it is the contents when the file was opened, for
		// a file git does not have.
		disk, diskErr := policyfile.Read(path)
		if src, ok := b.head(b.ctx, path); ok {
			entry.src, entry.ok = src, true
		} else if diskErr == nil {
			entry.src, entry.ok = disk, true
		}
	}()
}

// Forget drops path's baseline (the document was closed).
func (b *Baselines) Forget(path string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.files, path)
}

// Get returns path's baseline, waiting for its lookup (bounded by
// gitTimeout, or Close); it has the signature of Input.Baseline.
func (b *Baselines) Get(path string) ([]byte, bool) {
	b.mu.Lock()
	entry := b.files[path]
	b.mu.Unlock()
	if entry == nil {
		return nil, false
	}
	<-entry.ready
	return entry.src, entry.ok
}

// Close ends the lookups still running (git is stopped) and waits for
// them; a Get waiting on one then finds no baseline from git.
func (b *Baselines) Close() {
	b.mu.Lock()
	b.stop()
	b.mu.Unlock()
	b.lookups.Wait()
}

// committedVersion is the file at name (relative to dir, in the work tree
// holding dir) as committed at rev. `REV:./name` resolves relative to the
// directory git runs in, so the repository root never has to be spelled
// (and symlinked temp or home directories cannot make the relative path
// wrong). A file that is not tracked at rev, or no git at all, is ok =
// false.
func committedVersion(ctx context.Context, rev, dir, name string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "show", rev+":./"+filepath.ToSlash(name))
	cmd.Env = gitEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		return nil, false
	}
	// A process git left behind may hold the pipe open after git is
	// killed: the read ends with the context all the same.
	defer context.AfterFunc(ctx, func() { _ = stdout.Close() })()
	// A committed blob may be any size: read at most a policy file's
	// limit, and stop git if there is more.
	out, rerr := policyfile.ReadAll(stdout)
	if rerr != nil {
		cancel()
	}
	if err := cmd.Wait(); err != nil || rerr != nil {
		return nil, false
	}
	return out, true
}

// gitEnv is the environment of every git call: never take the index lock
// a concurrent git command may need.
func gitEnv() []string { return append(os.Environ(), "GIT_OPTIONAL_LOCKS=0") }

// NoBaseline is the --baseline value that turns CW500 off.
const NoBaseline = "none"

// CheckBaseline is the Input.Baseline of `check --baseline REV`. rev ""
// (the flag not given) compares with HEAD as the editor does, where there
// is one: a workspace outside git, or a repository without a commit yet,
// has no baseline then (nil). NoBaseline is nil. Any other rev must be a
// commit of the workspace's repository (revisionBaseline).
func CheckBaseline(ctx context.Context, workspace, rev string) (func(path string) ([]byte, bool), error) {
	if rev == NoBaseline {
		return nil, nil
	}
	root := config.GitRoot(workspace)
	if rev == "" {
		if root == "" {
			return nil, nil
		}
		b, err := revisionBaseline(ctx, root, "HEAD")
		if err != nil {
			return nil, nil // no commit yet, or no git: as in the editor
		}
		return b, nil
	}
	if root == "" {
		return nil, fmt.Errorf("--baseline %s compares with a git revision, but workspace %s is in no git repository", rev, workspace)
	}
	return revisionBaseline(ctx, root, rev)
}

// revisionBaseline is each file of the git work tree at root as committed
// at rev (a pull request's base branch, or HEAD as the editor compares),
// so CW500 reports what the changes since rev loosen. A file outside that work tree (the user's
// home) or not in rev has no baseline, as in the editor. rev is resolved
// to its commit once, so every file is compared with the same one; a rev
// the repository does not have (a shallow clone without the base branch)
// is an error naming it, never a run that silently compares nothing.
func revisionBaseline(ctx context.Context, root, rev string) (func(path string) ([]byte, bool), error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("--baseline %q is not a git revision (or %s)", rev, NoBaseline)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	cmd.Env = gitEnv()
	out, err := cmd.Output()
	if err != nil {
		why := "git is not there or failed"
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			why = "a shallow or single-branch clone lacks it: fetch it first (actions/checkout with fetch-depth: 0, GIT_DEPTH: 0 on GitLab, or git fetch origin BRANCH:refs/remotes/origin/BRANCH)"
		}
		return nil, fmt.Errorf("--baseline %s is not a commit of the git repository at %s; %s", rev, root, why)
	}
	commit := strings.TrimSpace(string(out))
	return func(path string) ([]byte, bool) {
		// From the root, as a file deleted since rev may have taken its
		// folder with it.
		rel, inside := relativeTo(root, path)
		if !inside || config.GitRoot(filepath.Dir(path)) != root {
			return nil, false // another repository's, nested in this one
		}
		return committedVersion(context.Background(), commit, root, rel)
	}, nil
}
