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
func NewBaselines() *Baselines { return newBaselines(headVersion) }

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

// headVersion is path as committed at HEAD of the work tree holding it.
// `HEAD:./name` resolves relative to the directory git runs in, so the
// repository root never has to be spelled (and symlinked temp or home
// directories cannot make the relative path wrong). A file that is not
// tracked at HEAD, or no git at all, is ok = false.
func headVersion(ctx context.Context, path string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", filepath.Dir(path), "show", "HEAD:./"+filepath.Base(path))
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
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
