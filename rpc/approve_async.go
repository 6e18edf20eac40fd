package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// The approval exchange of a client whose request handlers cannot wait
// for a person (Neovim 0.7 sends a server request's response as soon as
// its handler returns): with initializationOptions.approvalsAsync the
// prompt is the notification codewhale/approvalRequested and the answer
// the client's request codewhale/answerApproval, by the prompt's id
// (docs/codewhale/contract.md §4). Everything else (deadline, withdrawal,
// what an answer means) is as with codewhale/approve.
const (
	methodApprovalRequested = "codewhale/approvalRequested"
	methodAnswerApproval    = "codewhale/answerApproval"
)

func init() { register(methodAnswerApproval, answerApproval) }

// waitingPrompts are the prompts sent as notifications whose answers have
// not come, by prompt id. The server owns one; an asker adds and removes
// its own prompt.
type waitingPrompts struct {
	mu      sync.Mutex
	answers map[string]chan gate.Choice
}

func newWaitingPrompts() *waitingPrompts {
	return &waitingPrompts{answers: map[string]chan gate.Choice{}}
}

func (w *waitingPrompts) add(id string) chan gate.Choice {
	ch := make(chan gate.Choice, 1)
	w.mu.Lock()
	w.answers[id] = ch
	w.mu.Unlock()
	return ch
}

func (w *waitingPrompts) remove(id string) {
	w.mu.Lock()
	delete(w.answers, id)
	w.mu.Unlock()
}

// answer hands choice to the prompt id once; false when no such prompt
// waits (answered already, withdrawn, never sent).
func (w *waitingPrompts) answer(id string, choice gate.Choice) bool {
	w.mu.Lock()
	ch, ok := w.answers[id]
	delete(w.answers, id)
	w.mu.Unlock()
	if ok {
		ch <- choice
	}
	return ok
}

func (a editorAsker) askAsync(ctx context.Context, p *approvals.Prompt) (gate.Choice, error) {
	answer := a.waiting.add(p.ID)
	defer a.waiting.remove(p.ID)
	if err := a.conn.Notify(ctx, methodApprovalRequested, p); err != nil {
		return "", a.gone(err)
	}
	select {
	case choice := <-answer:
		return choice, nil
	case <-ctx.Done():
		a.withdraw(jsonrpc2.ID{}, p.ID, ctx.Err()) // no request to cancel
		return "", ctx.Err()
	case <-a.conn.Done():
		return "", approvals.ErrGone
	}
}

// answerParams is codewhale/answerApproval's params: {"id": "<prompt
// id>", "choice": "<choice id>" | null}, read strictly (exactly these
// keys, spelled so, once each), since it decides a call.
func decodeAnswerParams(raw []byte) (id string, choice gate.Choice, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, _ := dec.Token(); t != json.Delim('{') {
		return "", "", fmt.Errorf("params must be {\"id\": \"<prompt id>\", \"choice\": \"<choice>\" | null}, not %s", problem.Excerpt(string(raw)))
	}
	seen := map[string]bool{}
	for dec.More() {
		key, _ := dec.Token()
		name, ok := key.(string)
		if !ok || seen[name] || (name != "id" && name != "choice") {
			return "", "", fmt.Errorf("params: unexpected field %s (only id and choice, once each)", problem.Excerpt(fmt.Sprint(key)))
		}
		seen[name] = true
		value, err := dec.Token()
		if err != nil {
			return "", "", fmt.Errorf("params.%s: %v", name, err)
		}
		switch v := value.(type) {
		case string:
			if name == "id" {
				id = v
			} else {
				choice = gate.Choice(v)
			}
		case nil:
			if name == "id" {
				return "", "", fmt.Errorf("params.id must be the prompt's id, not null")
			}
		default:
			return "", "", fmt.Errorf("params.%s must be a string%s", name, map[bool]string{true: " or null", false: ""}[name == "choice"])
		}
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return "", "", fmt.Errorf("params: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", "", fmt.Errorf("params: text after the object")
	}
	if !seen["id"] || !seen["choice"] {
		return "", "", fmt.Errorf("params need both id and choice (null for a dismissal)")
	}
	return id, choice, nil
}

// answerApproval hands the client's answer to its waiting prompt. A
// choice the card did not offer is refused by the broker (a deny), as
// with codewhale/approve.
func answerApproval(_ context.Context, s *Server, params jsonrpc2.RawMessage) (any, error) {
	id, choice, err := decodeAnswerParams(params)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if !s.waiting.answer(id, choice) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no approval prompt "+problem.Excerpt(id)+" is waiting: it was answered, withdrawn (its call is denied) or never sent")
	}
	return struct{}{}, nil
}
