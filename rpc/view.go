package rpc

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/repolaw"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
	"github.com/codewhale-ls/codewhale-ls/rpc/workspaces"
)

// view is one workspace: one user's and one repository's policy files. It
// holds what Codewhale would load from disk (the snapshot every decision
// in the workspace reads, replaced whole when a file changes, so that a
// decision never sees half of an edit) and, once an own policy file on
// disk or an open policy document makes it linted, the lint of the open
// documents: the debounce, the latest check and the files it published.
// A folder without policy files of its own is never linted: it only
// answers decisions (its approval socket).
type view struct {
	set        *views
	root       string
	configFlag string // initializationOptions.config
	paths      config.Paths

	// policy is the snapshot of the files on disk, nil until a decision
	// first needs it.
	policy atomic.Pointer[config.Snapshot]
	// reloading serialises loads, so that a load that read the disk
	// earlier never replaces one that read it later.
	reloading sync.Mutex

	// run serializes checks so that their results publish in order.
	run sync.Mutex

	// used orders the views by their last use. Guarded by set.mu.
	used uint64

	mu         sync.Mutex // guards what follows
	linted     bool       // an own policy file or an open one: checked on every edit
	timer      *time.Timer
	unfinished int    // checks scheduled and not yet finished
	gen        uint64 // bumped by every schedule; a check publishes only for the latest
	stopped    bool
	latest     *checked
	published  map[uri.URI]bool // URIs last published with diagnostics
}

// checked is one check's result and the document versions it saw.
type checked struct {
	result   *diagnostics.Result
	versions map[uri.URI]int32
}

// newView describes the workspace at root. Resolving its paths reads the
// disk.
func newView(set *views, root, configFlag string) *view {
	v := &view{set: set, root: root, configFlag: configFlag, published: map[uri.URI]bool{}}
	// An unresolvable config path is reported by every check as a fatal
	// problem; the paths that did resolve still say which files are ours.
	v.paths, _ = config.ResolvePaths(v.options(nil))
	return v
}

func (v *view) options(buffers config.Buffers) config.Options {
	s := v.set.s
	return config.Options{ConfigFlag: v.configFlag, Workspace: v.root, Env: s.env, Buffers: buffers, Release: s.codewhale.implementation()}
}

// snapshot is the policy on disk, loaded on first use and again when it
// was loaded as another release (while `codewhale --version` ran): a
// decision reads the files as the release settled on. loaded says this
// call made the first load.
func (v *view) snapshot() (snap *config.Snapshot, loaded bool) {
	snap = v.policy.Load()
	if snap != nil && snap.Release == v.set.s.codewhale.implementation() {
		return snap, false
	}
	return v.reloadPolicy(), snap == nil
}

// refreshPolicy reloads the snapshot if a decision has loaded one.
func (v *view) refreshPolicy() {
	if v.policy.Load() != nil {
		v.reloadPolicy()
	}
}

// reloadPolicy replaces the snapshot with a fresh load.
func (v *view) reloadPolicy() *config.Snapshot {
	v.reloading.Lock()
	defer v.reloading.Unlock()
	snap := config.Load(v.options(nil))
	v.policy.Store(snap)
	return snap
}

// ownPolicyFiles are the places of the workspace's own policy files
// (rpc/workspaces.OwnFiles): where one exists, the workspace is linted.
func (v *view) ownPolicyFiles() []string {
	p := v.paths
	return workspaces.OwnFiles(v.root, []string{p.Config, p.Permissions, p.Settings, p.Overlay, p.LegacyOverlay, p.ProjectHooks, filepath.Join(v.root, repolaw.ConstitutionPath)})
}

// hasPolicyFiles reports whether one of the workspace's own policy files
// exists. Lstat reads a name, never a file, so it cannot hang on one that
// is not regular.
func (v *view) hasPolicyFiles() bool {
	for _, p := range v.ownPolicyFiles() {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// lint marks the view linted: checked on every edit from now on.
func (v *view) lint() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.linted = true
}

func (v *view) isLinted() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.linted
}

// schedule (re)starts the debounce timer of a linted view, so a burst of
// edits makes one check. An edit that finds the view idle (no check
// waiting or running) is checked at once: the debounce exists to skip
// checks a newer edit would make stale, and while idle, waiting only adds
// latency.
func (v *view) schedule() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.stopped || !v.linted {
		return
	}
	v.gen++
	gen := v.gen
	checks := &v.set.checks
	if v.timer != nil && v.timer.Stop() {
		v.unfinished--
		checks.Done() // that check will never run
	}
	delay := v.set.s.debounce
	if v.unfinished == 0 {
		delay = 0
	}
	v.unfinished++
	checks.Add(1)
	v.timer = time.AfterFunc(delay, func() {
		defer checks.Done()
		defer func() {
			v.mu.Lock()
			v.unfinished--
			v.mu.Unlock()
		}()
		v.check(gen)
	})
}

// stop cancels a pending check and refuses new ones.
func (v *view) stop() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.stopped = true
	if v.timer != nil && v.timer.Stop() {
		v.unfinished--
		v.set.checks.Done()
	}
}

// drop ends a view that was let go: no more checks, and the findings it
// published for files no other workspace holds open are cleared, since no
// view will publish them again.
func (v *view) drop() {
	v.stop()
	v.run.Lock() // a check running publishes before the clearing
	defer v.run.Unlock()
	v.mu.Lock()
	cleared := make([]uri.URI, 0, len(v.published))
	for u := range v.published {
		cleared = append(cleared, u)
	}
	v.published = map[uri.URI]bool{}
	v.mu.Unlock()
	v.set.s.clearDiagnostics(cleared, v.root)
}

// check lints the workspace and publishes the result, unless a newer edit
// arrived meanwhile: then the result describes text the editor no longer
// shows, and the newer edit's own check publishes instead.
func (v *view) check(gen uint64) {
	v.run.Lock()
	defer v.run.Unlock()
	s := v.set.s
	docs := s.docs.Snapshot()
	res, err := v.lintDocuments(docs)
	if err != nil {
		s.log.Error("check failed", "workspace", v.root, "error", err)
		return
	}
	versions := versionsOf(docs)
	current := maps.Equal(versions, s.docs.Versions())
	v.mu.Lock()
	fresh := gen == v.gen && !v.stopped && current
	if fresh {
		v.latest = &checked{result: res, versions: versions}
	}
	v.mu.Unlock()
	if !fresh {
		s.log.Debug("dropped a stale check", "workspace", v.root)
		return
	}
	v.publish(res, docs, s.positionEncoding())
}

// lintDocuments runs diagnostics.Check with the open documents standing
// in for their files. A panic in a linter is an error here, never a dead
// server.
func (v *view) lintDocuments(docs []*document.Document) (res *diagnostics.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	buffers := config.Buffers{}
	for _, d := range docs {
		buffers[d.Path] = d.Text
	}
	s := v.set.s
	return diagnostics.Check(diagnostics.Input{Options: v.options(buffers), Baseline: s.baselines.Get, Codewhale: s.codewhale.current()}), nil
}

// result returns a check of the current document versions: the latest
// published one when nothing changed since, else a fresh one (which is not
// published: the pending debounced check will do that).
func (v *view) result() (*diagnostics.Result, error) {
	v.mu.Lock()
	latest := v.latest
	v.mu.Unlock()
	docs := v.set.s.docs
	if latest != nil && maps.Equal(latest.versions, docs.Versions()) {
		return latest.result, nil
	}
	return v.lintDocuments(docs.Snapshot())
}

// latestSnapshot is the snapshot of the last published check, for
// cross-file facts; nil before the first check.
func (v *view) latestSnapshot() *config.Snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.latest != nil {
		return v.latest.result.Snapshot
	}
	return nil
}

func versionsOf(docs []*document.Document) map[uri.URI]int32 {
	out := make(map[uri.URI]int32, len(docs))
	for _, d := range docs {
		out[d.URI] = d.Version
	}
	return out
}

// sourceOf is the text a result saw for path, else the file on disk (for
// related information pointing outside the checked files).
func sourceOf(res *diagnostics.Result, path string) []byte {
	if f := res.File(path); f != nil {
		return f.Src
	}
	src, _ := policyfile.Read(path)
	return src
}
