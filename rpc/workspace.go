package rpc

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/workspaces"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// workspace is one user's and one repository's policy files: what a single
// diagnostics.Check lints together.
type workspace struct {
	s          *Server
	root       string
	configFlag string // initializationOptions.config
	paths      config.Paths

	// run serializes checks so that their results publish in order.
	run sync.Mutex

	// Guarded by s.mu.
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

// rootFor is the workspace a file is linted in (gate/workspaces
// decides). It reads the disk, so s.mu must not be held.
func (s *Server) rootFor(path string) string {
	s.mu.Lock()
	place := workspaces.Place{Folders: slices.Clone(s.folders), Named: s.root, Home: config.HomeDir(s.env), GitRoot: config.GitRoot}
	s.mu.Unlock()
	return place.Of(path)
}

// workspaceAt returns (creating it if needed) the workspace at root. It
// may read the disk, so s.mu must not be held.
func (s *Server) workspaceAt(root string) *workspace {
	s.mu.Lock()
	w, ok := s.workspaces[root]
	s.mu.Unlock()
	if ok {
		return w
	}
	w = s.newWorkspace(root)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keepWorkspace(w)
}

// keepWorkspace adds w to the workspaces checked, unless one at its root
// was added meanwhile (that one is returned) or the session is over (w
// is returned stopped). s.mu must be held.
func (s *Server) keepWorkspace(w *workspace) *workspace {
	if old, ok := s.workspaces[w.root]; ok {
		return old
	}
	w.stopped = s.state == shutDown
	if !w.stopped {
		s.workspaces[w.root] = w
	}
	return w
}

// newWorkspace describes the workspace at root without keeping it: a
// document that is not a policy file must not add a workspace to check.
// Resolving its paths reads the disk, so s.mu must not be held.
func (s *Server) newWorkspace(root string) *workspace {
	s.mu.Lock()
	configFlag := s.init.Config
	s.mu.Unlock()
	w := &workspace{s: s, root: root, configFlag: configFlag, published: map[uri.URI]bool{}}
	// An unresolvable config path is reported by every check as a fatal
	// problem; the paths that did resolve still say which files are ours.
	w.paths, _ = config.ResolvePaths(w.options(nil))
	return w
}

func (w *workspace) options(buffers config.Buffers) config.Options {
	return config.Options{ConfigFlag: w.configFlag, Workspace: w.root, Env: w.s.env, Buffers: buffers, Release: w.s.codewhale.implementation()}
}

// scheduleChecks re-checks every workspace after the debounce: any edit
// can matter to all of them (the user config.toml decides what each
// project overlay may loosen). s.mu must be held.
func (s *Server) scheduleChecks() {
	for _, w := range s.workspaces {
		w.schedule()
	}
}

// schedule (re)starts the debounce timer, so a burst of edits makes one
// check. An edit that finds the workspace idle (no check waiting or
// running) is checked at once: the debounce exists to skip checks a newer
// edit would make stale, and while idle, waiting only adds latency. s.mu
// must be held.
func (w *workspace) schedule() {
	if w.stopped {
		return
	}
	w.gen++
	gen := w.gen
	if w.timer != nil && w.timer.Stop() {
		w.unfinished--
		w.s.checks.Done() // that check will never run
	}
	delay := w.s.debounce
	if w.unfinished == 0 {
		delay = 0
	}
	w.unfinished++
	w.s.checks.Add(1)
	w.timer = time.AfterFunc(delay, func() {
		defer w.s.checks.Done()
		defer func() {
			w.s.mu.Lock()
			w.unfinished--
			w.s.mu.Unlock()
		}()
		w.check(gen)
	})
}

// stop cancels a pending check and refuses new ones. s.mu must be held.
func (w *workspace) stop() {
	w.stopped = true
	if w.timer != nil && w.timer.Stop() {
		w.unfinished--
		w.s.checks.Done()
	}
}

// check lints the workspace and publishes the result, unless a newer edit
// arrived meanwhile: then the result describes text the editor no longer
// shows, and the newer edit's own check publishes instead.
func (w *workspace) check(gen uint64) {
	w.run.Lock()
	defer w.run.Unlock()
	s := w.s
	docs := s.docs.Snapshot()
	res, err := w.lint(docs)
	if err != nil {
		s.log.Error("check failed", "workspace", w.root, "error", err)
		return
	}
	versions := versionsOf(docs)
	s.mu.Lock()
	fresh := gen == w.gen && !w.stopped && maps.Equal(versions, s.docs.Versions())
	if fresh {
		w.latest = &checked{result: res, versions: versions}
	}
	enc := s.encoding
	s.mu.Unlock()
	if !fresh {
		s.log.Debug("dropped a stale check", "workspace", w.root)
		return
	}
	w.publish(res, docs, enc)
}

// lint runs diagnostics.Check with the open documents standing in for
// their files. A panic in a linter is an error here, never a dead server.
func (w *workspace) lint(docs []*document.Document) (res *diagnostics.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	buffers := config.Buffers{}
	for _, d := range docs {
		buffers[d.Path] = d.Text
	}
	return diagnostics.Check(diagnostics.Input{Options: w.options(buffers), Baseline: w.s.baselines.Get, Codewhale: w.s.codewhale.current()}), nil
}

// result returns a check of the current document versions: the latest
// published one when nothing changed since, else a fresh one (which is not
// published: the pending debounced check will do that).
func (w *workspace) result() (*diagnostics.Result, error) {
	s := w.s
	s.mu.Lock()
	latest := w.latest
	s.mu.Unlock()
	if latest != nil && maps.Equal(latest.versions, s.docs.Versions()) {
		return latest.result, nil
	}
	return w.lint(s.docs.Snapshot())
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

// latestSnapshot is the snapshot of the last published check of d's
// workspace, for cross-file facts; nil before the first check.
func (s *Server) latestSnapshot(d *document.Document) *config.Snapshot {
	w := s.workspaceAt(d.Workspace)
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := w.latest; l != nil {
		return l.result.Snapshot
	}
	return nil
}
