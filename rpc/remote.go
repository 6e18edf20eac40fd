package rpc

import (
	"context"
	"slices"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// syncRemotes serves the approval socket of every workspace folder of the
// client (the root it named when it named no folder), so that another
// agent's pre-tool hook (codewhale-ls hook AGENT) in any of them is
// decided here and its asks are put to the user in this editor; a folder
// the client removed stops being served. Without a workspace, or where a
// socket cannot be served, hooks decide without an editor; the server
// works on. A client that cannot show a prompt (rpc/prompting) serves
// none: its hooks then take the next step at once (the console, the
// agent's own prompt) instead of a prompt that would fail. It runs in the order of the client's notifications
// (initialized, workspace/didChangeWorkspaceFolders), and listens
// outside s.mu since listening touches the disk.
func (s *Server) syncRemotes() {
	s.mu.Lock()
	if s.state != running || !s.prompts.Served() {
		s.mu.Unlock()
		return
	}
	want := slices.Clone(s.folders)
	if len(want) == 0 && s.root != "" {
		want = []string{s.root}
	}
	var gone []*remote.Server
	for root, srv := range s.remotes {
		if !slices.Contains(want, root) {
			gone = append(gone, srv)
			delete(s.remotes, root)
		}
	}
	var add []string
	for _, root := range want {
		if _, ok := s.remotes[root]; !ok {
			add = append(add, root)
		}
	}
	s.mu.Unlock()
	for _, srv := range gone {
		_ = srv.Close()
	}
	for _, root := range add {
		srv, err := remote.Listen(root, s.decideRemote)
		if err != nil {
			s.log.Warn("not serving approvals to other agents' hooks", "workspace", root, "error", err)
			continue
		}
		s.mu.Lock()
		_, taken := s.remotes[root]
		if s.state != running || taken {
			s.mu.Unlock()
			_ = srv.Close()
			continue
		}
		s.remotes[root] = srv
		s.mu.Unlock()
	}
}

// decideRemote decides another agent's call exactly as codewhale/authorize
// decides the editor's agent's (approvals.Authorizer.AuthorizeHook: its
// session grants are that agent session's own), and announces it with the
// agent's name.
func (s *Server) decideRemote(ctx context.Context, r remote.Request) gate.Decision {
	d, _, _ := s.authorizeAndAnnounce(ctx, r.Call, r.Agent, func(ctx context.Context) gate.Decision {
		return s.authz.AuthorizeHook(ctx, r)
	})
	return d
}
