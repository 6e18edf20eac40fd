// Package remote carries an approval question from another agent's
// pre-tool hook (codewhale-ls hook AGENT) to the codewhale-ls server running
// in the user's editor for the same workspace, over a local socket only the
// same user may use. The server decides with its own policy snapshot and
// asks the human where Codewhale would; the hook only relays the answer.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// ErrNoEditor: no codewhale-ls server for this workspace is listening (or it refused us).
var ErrNoEditor = errors.New("no editor is serving approvals for this workspace")

// ErrServerGone is the end of a connection before the server answered (the
// editor closed mid-prompt): the caller denies.
var ErrServerGone = errors.New("the editor's codewhale-ls closed the connection before answering")

// Request is one call the agent asks about. Deadline is when the asker
// stops waiting, taken as given: the hook's flow sets it early enough to
// still print its answer before the agent gives up (agents.HookFlow).
type Request struct {
	Agent string
	// Session is the agent's own session id as its hook event names it
	// ("" when it names none): a "for this session" answer is granted to
	// that session of that agent only (approvals.Session).
	Session   string
	Workspace string
	Call      gate.Request
	Deadline  time.Time
}

// Handler decides a Request on the server's side. Its context ends
// ServerMargin before the request's Deadline, or when the server closes.
type Handler func(ctx context.Context, req Request) gate.Decision

// ServerMargin is how long before the request's Deadline the server's
// decision (and the editor's prompt) must end. It protects what the asker
// cannot see: the server's own work after the prompt ends (the decision
// log, the editor's codewhale/decision) and the reply crossing the
// socket, all before Ask stops waiting at the Deadline. A Deadline closer
// than that is no editor (Ask).
const ServerMargin = 2 * time.Second

// maxMessage bounds one request or reply on the socket.
const maxMessage = 1 << 20

// readTimeout bounds how long the server waits for a connected client to
// send its request.
const readTimeout = 5 * time.Second

// wireRequest is a Request on the socket. Call is an AuthorizeRequest
// (docs/codewhale/contract.md §3) as gate.EncodeRequest writes it, so the
// server validates it with gate.ParseRequest exactly as it validates
// codewhale/authorize.
type wireRequest struct {
	Agent     string          `json:"agent"`
	Session   string          `json:"session,omitempty"`
	Workspace string          `json:"workspace"`
	Deadline  time.Time       `json:"deadline"`
	Call      json.RawMessage `json:"call"`
	// NeedsHuman is gate.Request.NeedsHuman, which an AuthorizeRequest
	// does not carry: it only ever adds a hold, so the peer (the same
	// user, checked by its kernel credentials) may set it.
	NeedsHuman string `json:"needsHuman,omitempty"`
}

// wireReply is the server's one answer: a Decision, or why there is none.
// Refused means the server will not decide for this client at all (the
// client reports ErrNoEditor); Error is a request it could not read.
type wireReply struct {
	Decision *gate.Decision `json:"decision,omitempty"`
	Refused  string         `json:"refused,omitempty"`
	Error    string         `json:"error,omitempty"`
}
