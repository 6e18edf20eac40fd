package rpc

import (
	"cmp"
	"slices"
	"sync"

	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/agents/install"
	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/rpc/workspaces"
)

// maxViews bounds the views kept besides the held ones (a workspace
// folder, the workspace of an open policy document): beyond it the least
// recently used of the others goes, and is made again on its next use.
const maxViews = 64

// views owns the server's per-workspace state, as gopls's cache does: one
// view per workspace, made on first use. Its lock guards the map and the
// use clock only; each view guards its own state (docs/architecture.md,
// "Per-workspace state").
type views struct {
	s *Server // the services every view uses: env, documents, client, log
	// checks owns every debounce timer and running check (and the
	// release detection); stop waits for it.
	checks sync.WaitGroup

	mu      sync.Mutex
	byRoot  map[string]*view
	uses    uint64 // orders the views by their last use, for the bound
	stopped bool   // the session is over: no view is kept or checked
}

func newViews(s *Server) *views {
	return &views{s: s, byRoot: map[string]*view{}}
}

// get returns the view of root, making it if needed. Making one reads the
// disk (the policy paths), outside the lock; of two made at once for one
// root, the first kept wins.
func (vs *views) get(root string) *view {
	if v, ok := vs.lookup(root); ok {
		return v
	}
	return vs.keep(vs.describe(root))
}

// open is the view a policy file at path is linted in, root's, made
// linted (and its files watched) if it was not; ok is false, and no view
// kept, when path is not a policy file of that workspace. It reads the
// disk, outside the lock.
func (vs *views) open(root, path string) (v *view, kind config.Kind, ok bool) {
	v, known := vs.lookup(root)
	if !known {
		v = vs.describe(root)
	}
	if kind, ok = diagnostics.KindOf(v.paths, path); !ok {
		return nil, kind, false
	}
	if !known {
		v = vs.keep(v)
	}
	if !v.isLinted() {
		v.lint()
		vs.s.watchPolicies() // its files on disk are linted too
	}
	return v, kind, true
}

// lookup is the view of root if one is kept.
func (vs *views) lookup(root string) (*view, bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v, ok := vs.byRoot[root]
	if ok {
		vs.used(v)
	}
	return v, ok
}

// describe makes the view of root without keeping it: a document that is
// not a policy file must not add a workspace. It reads the disk.
func (vs *views) describe(root string) *view {
	return newView(vs, root, vs.s.configFlag())
}

// keep adds v, unless a view of its root was kept meanwhile (that one is
// returned) or the session is over (v is returned stopped), and lets the
// least recently used unheld view go beyond maxViews.
func (vs *views) keep(v *view) *view {
	held := vs.s.openedWorkspaces()
	vs.mu.Lock()
	if old, ok := vs.byRoot[v.root]; ok {
		vs.used(old)
		vs.mu.Unlock()
		return old
	}
	if vs.stopped {
		vs.mu.Unlock()
		v.stop()
		return v
	}
	vs.byRoot[v.root] = v
	vs.used(v)
	evicted := vs.overBound(held)
	vs.mu.Unlock()
	if evicted != nil {
		evicted.drop()
	}
	return v
}

// used marks v as the most recently used. vs.mu must be held.
func (vs *views) used(v *view) {
	vs.uses++
	v.used = vs.uses
}

// overBound removes and returns the least recently used view whose root
// is not held, when more than maxViews are not; nil otherwise. vs.mu must
// be held.
func (vs *views) overBound(held []string) *view {
	var unheld []*view
	for root, v := range vs.byRoot {
		if !slices.Contains(held, root) {
			unheld = append(unheld, v)
		}
	}
	if len(unheld) <= maxViews {
		return nil
	}
	oldest := slices.MinFunc(unheld, func(a, b *view) int { return cmp.Compare(a.used, b.used) })
	delete(vs.byRoot, oldest.root)
	return oldest
}

// release lets the views of roots go (their folders went), unless an
// open document still holds one.
func (vs *views) release(roots []string) {
	held := vs.s.openedWorkspaces()
	var gone []*view
	vs.mu.Lock()
	for _, root := range roots {
		if v, ok := vs.byRoot[root]; ok && !slices.Contains(held, root) {
			delete(vs.byRoot, root)
			gone = append(gone, v)
		}
	}
	vs.mu.Unlock()
	for _, v := range gone {
		v.drop()
	}
}

// all is every view kept, for a change that concerns them all.
func (vs *views) all() []*view {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	out := make([]*view, 0, len(vs.byRoot))
	for _, v := range vs.byRoot {
		out = append(out, v)
	}
	return out
}

// scheduleChecks re-checks every linted view after the debounce: any edit
// can matter to all of them (the user config.toml decides what each
// project overlay may loosen).
func (vs *views) scheduleChecks() {
	for _, v := range vs.all() {
		v.schedule()
	}
}

// reload replaces every loaded policy with a fresh load of the disk.
func (vs *views) reload() {
	for _, v := range vs.all() {
		v.refreshPolicy()
	}
}

// lintAppeared makes linted every view one of whose own policy files now
// exists (created on disk since): from then on it is checked as any.
func (vs *views) lintAppeared() {
	for _, v := range vs.all() {
		if !v.isLinted() && v.hasPolicyFiles() {
			v.lint()
		}
	}
}

// watched is every file the views read: the policy files of each linted
// workspace, the other agents' hooks files (CW700), every source of a
// loaded policy, and where each workspace's own policy files would
// appear (which makes it linted). It reads the disk (git roots, the
// hooks files).
func (vs *views) watched() []string {
	var targets []string
	for _, v := range vs.all() {
		targets = append(targets, v.ownPolicyFiles()...)
		if snap := v.policy.Load(); snap != nil {
			targets = append(targets, snap.Sources()...)
		}
		if v.isLinted() {
			targets = append(targets, v.paths.Config, v.paths.Permissions, v.paths.Overlay, v.paths.ProjectHooks)
			targets = append(targets, install.Watched(v.root, vs.s.env)...)
		}
	}
	slices.Sort(targets)
	return slices.Compact(targets)
}

// stop ends every debounce timer and waits for the checks running, so
// that no goroutine of the server outlives the session.
func (vs *views) stop() {
	vs.mu.Lock()
	vs.stopped = true
	all := make([]*view, 0, len(vs.byRoot))
	for _, v := range vs.byRoot {
		all = append(all, v)
	}
	vs.mu.Unlock()
	for _, v := range all {
		v.stop()
	}
	vs.checks.Wait()
}

// rootFor is the workspace a file is linted in (rpc/workspaces decides).
// It reads the disk.
func (s *Server) rootFor(path string) string {
	s.mu.Lock()
	place := workspaces.Place{Folders: slices.Clone(s.folders), Named: s.root, Home: config.HomeDir(s.env), GitRoot: config.GitRoot}
	s.mu.Unlock()
	return place.Of(path)
}

// configFlag is initializationOptions.config.
func (s *Server) configFlag() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init.Config
}

// ownedElsewhere says whether a workspace other than root holds u open:
// that one publishes its diagnostics, with the version.
func (s *Server) ownedElsewhere(u uri.URI, root string) bool {
	d, ok := s.docs.Get(u)
	return ok && d.Workspace != root
}
