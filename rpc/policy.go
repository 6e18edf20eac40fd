package rpc

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// policyFor returns the current disk snapshot of workspace, loading it on
// first use (and watching its files from then on). The load reads the
// disk under no lock but the view's own load lock, so a slow disk delays
// this call only.
func (s *Server) policyFor(workspace string) *config.Snapshot {
	v := s.views.get(workspace)
	snap, loaded := v.snapshot()
	if !loaded {
		return snap
	}
	s.watchPolicies()
	// A change between the load and the new watches reports no event.
	return v.reloadPolicy()
}

// policiesChanged reloads every workspace's snapshot after a change to
// any policy file on disk, lints a workspace where one of its own
// appeared, re-checks the workspaces (files that are not open are linted
// from disk), and tells the client. paths are what changed, for the
// message.
func (s *Server) policiesChanged(paths []string) {
	if !s.reloadPolicies() {
		return
	}
	s.views.lintAppeared()
	s.watchPolicies()
	s.views.scheduleChecks()
	if len(paths) > 0 {
		s.logToClient(protocol.MessageTypeInfo, "codewhale-ls reloaded the policy after a change to "+strings.Join(paths, ", "))
	}
}

// reloadPolicies replaces every workspace's snapshot with a fresh load;
// false once the session is over.
func (s *Server) reloadPolicies() bool {
	if !s.isRunning() {
		return false
	}
	s.views.reload()
	return true
}

// isRunning says whether the session is between initialize and shutdown.
func (s *Server) isRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == running
}

// watchPolicies points the file watcher at every file the views read.
func (s *Server) watchPolicies() {
	s.mu.Lock()
	w := s.watcher
	s.mu.Unlock()
	if w == nil {
		return
	}
	if err := w.Set(s.views.watched()); err != nil {
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
