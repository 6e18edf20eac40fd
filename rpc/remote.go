package rpc

import (
	"context"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// startRemote serves the approval socket of the client's workspace, so
// that another agent's pre-tool hook (codewhale-ls hook AGENT) in the same
// workspace is decided here and its asks are put to the user in this
// editor. Without a workspace, or when the socket cannot be served, hooks
// decide without an editor; the server works on.
func (s *Server) startRemote() {
	s.mu.Lock()
	root, state := s.root, s.state
	s.mu.Unlock()
	if root == "" || state != running {
		return
	}
	srv, err := remote.Listen(root, s.decideRemote)
	if err != nil {
		s.log.Warn("not serving approvals to other agents' hooks", "workspace", root, "error", err)
		return
	}
	s.mu.Lock()
	if s.state != running || s.remote != nil {
		s.mu.Unlock()
		_ = srv.Close()
		return
	}
	s.remote = srv
	s.mu.Unlock()
}

// decideRemote decides another agent's call exactly as codewhale/authorize
// decides the editor's agent's, and announces it with the agent's name.
func (s *Server) decideRemote(ctx context.Context, r remote.Request) gate.Decision {
	// The agent runs the call itself, outside Codewhale's OS sandbox,
	// whatever the request says.
	r.Call.OutsideSandbox = true
	d, _, _ := s.authorizeAndAnnounce(ctx, r.Call, r.Agent)
	return d
}
