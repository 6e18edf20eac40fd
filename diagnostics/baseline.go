package diagnostics

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// gitTimeout bounds the one git call per opened file: a hung or slow git
// must not hold up opening a document; the disk contents serve instead.
const gitTimeout = 2 * time.Second

// Baselines remembers, per file, the version edits are compared with for
// CW500: the git HEAD version of the file, else its disk contents when it
// was opened. Safe for concurrent use.
type Baselines struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewBaselines returns an empty set.
func NewBaselines() *Baselines { return &Baselines{files: map[string][]byte{}} }

// Open records the baseline of path (git HEAD, else the disk contents now).
// A file in neither has no baseline: everything in it is new.
func (b *Baselines) Open(path string) {
	src, ok := headVersion(path)
	if !ok {
		disk, err := policyfile.Read(path)
		if err != nil {
			b.Forget(path)
			return
		}
		src = disk
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[path] = src
}

// Forget drops path's baseline (the document was closed).
func (b *Baselines) Forget(path string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.files, path)
}

// Get returns path's baseline; it has the signature of Input.Baseline.
func (b *Baselines) Get(path string) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	src, ok := b.files[path]
	return src, ok
}

// headVersion is path as committed at HEAD of the work tree holding it.
// `HEAD:./name` resolves relative to the directory git runs in, so the
// repository root never has to be spelled (and symlinked temp or home
// directories cannot make the relative path wrong). A file that is not
// tracked at HEAD, or no git at all, is ok = false.
func headVersion(path string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", filepath.Dir(path), "show", "HEAD:./"+filepath.Base(path))
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		return nil, false
	}
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
