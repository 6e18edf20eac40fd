package rpc

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codewhale-ls/codewhale-ls/agents/install"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// maxPolicies bounds the disk snapshots kept: one per workspace that
// decisions were asked for (the editor's folders and the workspaces of the
// policy files it opened), the least recently used dropped beyond it and
// loaded again on its next use.
const maxPolicies = 64

// policy is what Codewhale would load from disk for one workspace: the
// snapshot every decision in that workspace reads, replaced whole when a
// file changes, so a decision never sees half of an edit.
type policy struct {
	opts config.Options
	// codewhale is the session's release choice: each load reads it.
	codewhale *codewhaleChoice
	snap      atomic.Pointer[config.Snapshot]
	// reloading serialises loads, so that a load that read the disk
	// earlier never replaces one that read it later.
	reloading sync.Mutex
	// used orders the policies by their last use, for eviction. Guarded
	// by the server's mu.
	used uint64
}

func (p *policy) reload() {
	p.reloading.Lock()
	defer p.reloading.Unlock()
	opts := p.opts
	opts.Release = p.codewhale.implementation()
	p.snap.Store(config.Load(opts))
}

// policyFor returns the current disk snapshot of workspace, loading it on
// first use (and watching its files from then on). The load reads the
// disk outside s.mu, so a slow disk delays this call only.
func (s *Server) policyFor(workspace string) *config.Snapshot {
	s.mu.Lock()
	p, ok := s.policies[workspace]
	if ok {
		s.usePolicy(p)
	}
	configFlag := s.init.Config
	s.mu.Unlock()
	if ok {
		if snap := p.snap.Load(); snap.Release == s.codewhale.implementation() {
			return snap
		}
		// Loaded as another release (while `codewhale --version` ran):
		// a decision reads the files as the release settled on.
		p.reload()
		return p.snap.Load()
	}
	p = &policy{opts: config.Options{ConfigFlag: configFlag, Workspace: workspace, Env: s.env}, codewhale: s.codewhale}
	p.reload()
	s.mu.Lock()
	if kept, ok := s.policies[workspace]; ok {
		p = kept // loaded meanwhile by another call; one policy per workspace
	} else {
		s.keepPolicy(workspace, p)
	}
	s.mu.Unlock()
	s.watchPolicies()
	// A change between the load and the new watches reports no event.
	p.reload()
	return p.snap.Load()
}

// usePolicy marks p as the most recently used. s.mu must be held.
func (s *Server) usePolicy(p *policy) {
	s.policyUses++
	p.used = s.policyUses
}

// keepPolicy adds p, dropping the least recently used policy beyond
// maxPolicies (its files are no longer watched). s.mu must be held.
func (s *Server) keepPolicy(workspace string, p *policy) {
	s.usePolicy(p)
	s.policies[workspace] = p
	if len(s.policies) <= maxPolicies {
		return
	}
	oldest := ""
	for ws, q := range s.policies {
		if oldest == "" || q.used < s.policies[oldest].used {
			oldest = ws
		}
	}
	delete(s.policies, oldest)
}

// policiesChanged reloads every workspace's snapshot after a change to
// any policy file on disk, re-checks the workspaces (files that are not
// open are linted from disk), and tells the client. paths are what
// changed, for the message.
func (s *Server) policiesChanged(paths []string) {
	if !s.reloadPolicies() {
		return
	}
	s.watchPolicies()
	s.mu.Lock()
	s.scheduleChecks()
	s.mu.Unlock()
	if len(paths) > 0 {
		s.logToClient(protocol.MessageTypeInfo, "codewhale-ls reloaded the policy after a change to "+strings.Join(paths, ", "))
	}
}

// reloadPolicies replaces every workspace's snapshot with a fresh load;
// false once the session is over.
func (s *Server) reloadPolicies() bool {
	s.mu.Lock()
	if s.state != running {
		s.mu.Unlock()
		return false
	}
	all := make([]*policy, 0, len(s.policies))
	for _, p := range s.policies {
		all = append(all, p)
	}
	s.mu.Unlock()
	for _, p := range all {
		p.reload()
	}
	return true
}

// watchPolicies points the file watcher at every file the snapshots and
// the linted workspaces read.
func (s *Server) watchPolicies() {
	s.mu.Lock()
	w := s.watcher
	var targets []string
	snaps := make([]*config.Snapshot, 0, len(s.policies))
	for _, p := range s.policies {
		snaps = append(snaps, p.snap.Load())
	}
	roots := make([]string, 0, len(s.workspaces))
	for _, ws := range s.workspaces {
		targets = append(targets, ws.paths.Config, ws.paths.Permissions, ws.paths.Overlay, ws.paths.ProjectHooks)
		roots = append(roots, ws.root)
	}
	s.mu.Unlock()
	if w == nil {
		return
	}
	// Sources looks for git roots on disk, and the other agents' hooks
	// files (CW700) are listed from disk: not under s.mu.
	for _, snap := range snaps {
		targets = append(targets, snap.Sources()...)
	}
	for _, root := range roots {
		targets = append(targets, install.Watched(root, s.env)...)
	}
	slices.Sort(targets)
	if err := w.Set(slices.Compact(targets)); err != nil {
		s.log.Warn("cannot watch the policy files", "error", err)
	}
}

// logToClient sends window/logMessage; a client that is gone is not an
// error of ours.
func (s *Server) logToClient(t protocol.MessageType, msg string) {
	if s.client == nil {
		return
	}
	if err := s.client.LogMessage(context.Background(), &protocol.LogMessageParams{Type: t, Message: msg}); err != nil {
		s.log.Debug("logMessage failed", "error", err)
	}
}
