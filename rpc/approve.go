package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/rpc/prompting"
)

// methodApprove is the server → client request of a client that declared
// initializationOptions.approvals = "codewhale".
const methodApprove = string(prompting.Request)

// editorAsker shows approval prompts in the editor the way the client
// declared (rpc/prompting): as codewhale/approve, as
// codewhale/approvalRequested (approve_async.go), or as
// window/showMessageRequest whose actions are the card's titles; to a
// client that declared none, no prompt is sent and the call is denied at
// once, saying why.
type editorAsker struct {
	conn    jsonrpc2.Conn
	client  protocol.Client
	prompts prompting.Choice
	waiting *waitingPrompts
}

func (a editorAsker) Ask(ctx context.Context, p *approvals.Prompt) (gate.Choice, error) {
	switch a.prompts.Kind {
	case prompting.Notification:
		return a.askAsync(ctx, p)
	case prompting.Request:
		return a.askCustom(ctx, p)
	case prompting.MessageRequest:
		return a.askMessage(ctx, p)
	}
	return "", fmt.Errorf("%w: %s, so nobody can approve this call here; use an editor that can show them (docs/editors.md)", approvals.ErrCannotPrompt, a.prompts.Why)
}

func (a editorAsker) askCustom(ctx context.Context, p *approvals.Prompt) (gate.Choice, error) {
	var raw json.RawMessage
	id, err := a.conn.Call(ctx, methodApprove, p, &raw)
	if err != nil {
		if ctx.Err() != nil {
			a.withdraw(id, p.ID, ctx.Err())
		}
		return "", a.gone(err)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	choice, ok := decodeAnswer(raw)
	if !ok {
		return "", fmt.Errorf("the answer %s is not {\"choice\": \"<id>\"}", problem.Excerpt(string(raw)))
	}
	return choice, nil
}

// methodWithdrawn tells the client that a prompt it may still show no
// longer counts, by the prompt's id.
const methodWithdrawn = "codewhale/approvalWithdrawn"

// withdraw takes a prompt off the editor's screen once the server stopped
// waiting for it (deadline, cancelled call, shutdown): the call is denied
// already, and a click there would count for nothing. The LSP way is
// $/cancelRequest with the request's id (VS Code's client turns it into
// the handler's cancellation); codewhale/approvalWithdrawn names the
// prompt for clients whose handlers never see request ids (Neovim).
// Both are best effort: a client that is gone needs neither.
func (a editorAsker) withdraw(request jsonrpc2.ID, prompt string, why error) {
	reason := "cancelled"
	if errors.Is(why, context.DeadlineExceeded) {
		reason = "timeout"
	}
	ctx, cancel := context.WithTimeout(context.Background(), withdrawWait)
	defer cancel()
	if n, ok := request.Number(); ok { // our calls' ids are numbers
		_ = a.conn.Notify(ctx, "$/cancelRequest", map[string]int64{"id": n})
	}
	_ = a.conn.Notify(ctx, methodWithdrawn, withdrawal{ID: prompt, Reason: reason})
}

// withdrawal is the params of codewhale/approvalWithdrawn.
type withdrawal struct {
	ID     string `json:"id"`
	Reason string `json:"reason"` // timeout | cancelled
}

// withdrawWait bounds how long a withdrawal may wait for the output
// stream (a client that stopped reading).
const withdrawWait = time.Second

// decodeAnswer reads {"choice": "<id>"} strictly: exactly that one key,
// spelled so (encoding/json would take "Choice" or "CHOICE" too), once,
// with a string value, and nothing after the object.
func decodeAnswer(raw []byte) (gate.Choice, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	next := func() json.Token {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		return t
	}
	if next() != json.Delim('{') || next() != "choice" {
		return "", false
	}
	choice, isString := next().(string)
	if !isString || next() != json.Delim('}') {
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false
	}
	return gate.Choice(choice), true
}

func (a editorAsker) askMessage(ctx context.Context, p *approvals.Prompt) (gate.Choice, error) {
	actions := make([]protocol.MessageActionItem, 0, len(p.Choices))
	for _, title := range p.Titles() {
		actions = append(actions, protocol.MessageActionItem{Title: title})
	}
	picked, err := a.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: p.Message(), Actions: actions,
	})
	if err != nil {
		return "", a.gone(err)
	}
	if picked == nil {
		return "", nil
	}
	if c, ok := p.ChoiceTitled(picked.Title); ok {
		return c, nil
	}
	// Not a title the card offered: pass it on, for the broker to refuse.
	return gate.Choice("title:" + picked.Title), nil
}

// gone tells a closed connection from an error the client answered with.
// A stream that ended fails the call before the connection says it is
// done, so the error itself counts too.
func (a editorAsker) gone(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) {
		return approvals.ErrGone
	}
	select {
	case <-a.conn.Done():
		return approvals.ErrGone
	default:
		return err
	}
}
