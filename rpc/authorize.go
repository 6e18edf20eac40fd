package rpc

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/jsonrpc2"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/rpc/workspaces"
)

// methodDecision is the server → client notification of every final
// decision of codewhale/authorize.
const methodDecision = "codewhale/decision"

func init() {
	register("codewhale/authorize", authorize)
	register("codewhale/explain", explain)
}

// authorize decides a call of an editor-hosted agent from the policy on
// disk, asking the user where Codewhale would; the answer is always allow
// or deny.
func authorize(ctx context.Context, s *Server, params jsonrpc2.RawMessage) (any, error) {
	req, err := s.parseRequest(params)
	if err != nil {
		return nil, err
	}
	_, result, err := s.authorizeAndAnnounce(ctx, req, "", func(ctx context.Context) gate.Decision {
		return s.authz.Authorize(ctx, req, "")
	})
	return result, err
}

// authorizeAndAnnounce decides a call for agent ("" for the editor's own)
// with decide and announces the decision; result is the call's encoded
// answer.
// Shutdown waits for both. jsonrpc2 writes the answer after the handler
// returns, so shutdown's own answer can still overtake it by that write;
// a client that closes meanwhile gets no answer, which is no allow. A call
// refused because the server is shutting down is not decided: neither
// logged nor announced.
func (s *Server) authorizeAndAnnounce(ctx context.Context, req gate.Request, agent string, decide func(context.Context) gate.Decision) (d gate.Decision, result any, err error) {
	if !s.beginAuthorize() {
		d = gate.Refuse(req, "codewhale-ls is shutting down")
		return d, d, nil
	}
	defer s.authorizing.Done()
	d = decide(ctx)
	result, err = s.announce(d, agent)
	return d, result, err
}

// announcedDecision is a codewhale/decision: the Decision, and the other
// agent it was made for, if any.
type announcedDecision struct {
	gate.Decision
	Agent string `json:"agent,omitempty"`
}

// announce sends a final decision, made for agent ("" for the editor's
// own), as codewhale/decision and returns it as the call's result. The
// notification is for people (the editors' decision views) and has its
// secrets masked (approvals.MaskDecision); the result is the agent's own
// call, which runs as it says (a hook may have rewritten its input), so
// it is kept whole.
func (s *Server) announce(d gate.Decision, agent string) (any, error) {
	raw, err := json.Marshal(announcedDecision{Decision: d, Agent: agent})
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "encoding the decision: "+err.Error())
	}
	shown, err := json.Marshal(announcedDecision{Decision: approvals.MaskDecision(d), Agent: agent})
	if err == nil {
		err = s.conn.Notify(context.Background(), methodDecision, jsonrpc2.RawMessage(shown))
	}
	if err != nil {
		s.log.Debug("codewhale/decision not sent", "error", err)
	}
	return jsonrpc2.RawMessage(raw), nil
}

// beginAuthorize counts an authorize call in, unless the server is past
// shutdown (stopDeciding then waits for the calls it counted).
func (s *Server) beginAuthorize() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != running {
		return false
	}
	s.authorizing.Add(1)
	return true
}

// explain is authorize without a prompt: an ask stays ask.
func explain(ctx context.Context, s *Server, params jsonrpc2.RawMessage) (any, error) {
	req, err := s.parseRequest(params)
	if err != nil {
		return nil, err
	}
	return s.authz.Explain(ctx, req), nil
}

// parseRequest reads an AuthorizeRequest; the workspace defaults to the
// server's. A bad request is an InvalidParams error naming the field.
func (s *Server) parseRequest(params jsonrpc2.RawMessage) (gate.Request, error) {
	s.mu.Lock()
	root := s.root
	s.mu.Unlock()
	if len(params) == 0 {
		return gate.Request{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params: an AuthorizeRequest")
	}
	req, err := gate.ParseRequest(params, gate.Request{Workspace: root})
	if err != nil {
		return req, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if req.Workspace == "" {
		return req, jsonrpc2.NewError(jsonrpc2.InvalidParams, "workspace: required (the client opened no workspace)")
	}
	return req, nil
}

// outsideWorkspaces refuses a workspace the editor did not open: an agent
// must not pick the policy that judges it (rpc/workspaces decides).
func (s *Server) outsideWorkspaces(workspace string) string {
	return workspaces.Refusal(workspace, s.openedWorkspaces())
}

// openedWorkspaces are the editor's workspace folders and the workspace
// of every policy file open in it.
func (s *Server) openedWorkspaces() []string {
	s.mu.Lock()
	opened := slices.Clone(s.folders)
	s.mu.Unlock()
	for _, d := range s.docs.Snapshot() {
		opened = append(opened, d.Workspace)
	}
	return opened
}
