package approvals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// DefaultTimeout is how long a prompt waits for its answer (docs/codewhale/contract.md §4).
const DefaultTimeout = 300 * time.Second

// Asker puts a prompt in front of the user. It returns the id of the
// choice picked, or "" for a dismissed prompt (a null answer). It must
// return once ctx ends.
type Asker interface {
	Ask(ctx context.Context, p *Prompt) (gate.Choice, error)
}

// ErrGone is what an Asker returns when the editor can no longer answer.
var ErrGone = errors.New("the editor is gone")

// ErrCannotPrompt is what an Asker returns, wrapped with the reason, for
// an editor that declared no way to show a prompt: the call is denied at
// once, saying so, rather than as a prompt "dismissed" (issue 25).
var ErrCannotPrompt = errors.New("this editor cannot show approval prompts")

// Broker runs approval prompts. Any number may be pending at once; each
// ends exactly once, and every end but a valid choice is a denial.
type Broker struct {
	asker   Asker
	timeout time.Duration
	shownBy string // who shows the prompts: "the editor", "the approval console"

	closed    chan struct{}
	closeOnce sync.Once
	askers    sync.WaitGroup // one per prompt in flight at the Asker

	mu      sync.Mutex
	pending map[string]string // prompt id → the asking agent ("" for the editor's own)
}

// NewBroker returns a broker asking through asker, with timeout per prompt
// (DefaultTimeout when not positive), its prompts shown by shownBy ("the
// editor" when empty), as the trace and the decision log say.
func NewBroker(asker Asker, timeout time.Duration, shownBy string) *Broker {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if shownBy == "" {
		shownBy = "the editor"
	}
	return &Broker{asker: asker, timeout: timeout, shownBy: shownBy, closed: make(chan struct{}), pending: map[string]string{}}
}

// Pending is the number of prompts waiting for an answer.
func (b *Broker) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// PendingAgents are the other agents (pre-tool hooks) whose prompts wait
// for an answer, sorted, each once.
func (b *Broker) PendingAgents() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	agents := []string{}
	for _, agent := range b.pending {
		if agent != "" && !slices.Contains(agents, agent) {
			agents = append(agents, agent)
		}
	}
	slices.Sort(agents)
	return agents
}

// Bound is a deadline the user's policy sets for a prompt, shorter than the
// editor's: `[approval] timeout_seconds` since Codewhale 0.10.0
// (docs/codewhale/releases/0.10.0.md B.8.1). The zero Bound sets none.
type Bound struct {
	Within time.Duration
	// Source names the setting, for the denial's reason.
	Source string
}

// Ask shows p and waits for its end: a valid choice, or a denial when the
// answer is null or not one of p's choices, the Asker fails, the deadline
// passes, ctx ends, or the broker closes. The deadline is the broker's
// timeout, or bound when that is sooner; either way its expiry denies and
// the answer says which decided. It sets p.ID, unguessable, and
// p.Deadline.
func (b *Broker) Ask(ctx context.Context, p *Prompt, bound Bound) gate.Answer {
	id, err := newPromptID()
	if err != nil {
		return gate.Answer{Choice: gate.ChoiceDismissed, Why: "no prompt id: " + err.Error()}
	}
	p.ID = id
	limit := deadline{within: b.timeout, source: b.shownBy + "'s approval timeout"}
	if bound.Within > 0 && bound.Within < limit.within {
		limit = deadline{within: bound.Within, source: bound.Source}
	}
	if due, ok := ctx.Deadline(); ok && time.Until(due) < limit.within {
		limit = deadline{within: time.Until(due), source: "the deadline of the caller (an agent's hook timeout)"}
	}
	due := time.Now().Add(limit.within)
	p.Deadline = due.UTC().Format(time.RFC3339)
	by := "in " + b.shownBy + " (prompt " + id + ")"

	if !b.register(id, p.Agent) {
		return gate.Answer{Choice: gate.ChoiceDisconnected, By: by, Why: "the server is shutting down"}
	}
	defer b.unregister(id)

	askCtx, cancel := context.WithTimeout(ctx, limit.within)
	defer cancel()
	type reply struct {
		choice gate.Choice
		err    error
	}
	replies := make(chan reply, 1)
	go func() {
		defer b.askers.Done()
		c, err := b.asker.Ask(askCtx, p)
		replies <- reply{c, err}
	}()

	select {
	case r := <-replies:
		return b.judge(askCtx, p, r.choice, r.err, by, limit)
	case <-askCtx.Done():
		return ended(ctx, by, limit)
	case <-b.closed:
		return gate.Answer{Choice: gate.ChoiceDisconnected, By: by, Why: "the server shut down before an answer"}
	}
}

// judge turns the Asker's reply into an answer.
func (b *Broker) judge(askCtx context.Context, p *Prompt, c gate.Choice, err error, by string, limit deadline) gate.Answer {
	switch {
	case errors.Is(err, ErrGone):
		return gate.Answer{Choice: gate.ChoiceDisconnected, By: by}
	case errors.Is(err, ErrCannotPrompt):
		return gate.Answer{Choice: gate.ChoiceDismissed, By: by, Why: err.Error(), NotShown: true}
	case err != nil && askCtx.Err() != nil:
		return ended(askCtx, by, limit)
	case err != nil:
		return gate.Answer{Choice: gate.ChoiceDismissed, By: by, Why: "the editor answered with an error: " + err.Error()}
	case c == "":
		return gate.Answer{Choice: gate.ChoiceDismissed, By: by}
	case !p.offers(c):
		return gate.Answer{Choice: gate.ChoiceDismissed, By: by, Why: fmt.Sprintf("the editor answered %q, which the prompt did not offer", string(c))}
	}
	return gate.Answer{Choice: c, By: by}
}

// deadline is how long a prompt waits, and what set it.
type deadline struct {
	within time.Duration
	source string
}

// ended is the answer of a prompt whose context ended: the deadline, which
// the answer names as what decided, or the authorize request itself was
// cancelled.
func ended(ctx context.Context, by string, limit deadline) gate.Answer {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return gate.Answer{Choice: gate.ChoiceDismissed, By: by, Why: "the authorize request was cancelled"}
	}
	return gate.Answer{Choice: gate.ChoiceTimeout, By: by, Why: fmt.Sprintf("no answer within %s, the bound set by %s", limit.within, limit.source)}
}

func (b *Broker) register(id, agent string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.closed:
		return false
	default:
	}
	b.pending[id] = agent
	// Counted under mu, so that Close, which closes b.closed under mu,
	// waits for every Asker call that registered before it.
	b.askers.Add(1)
	return true
}

func (b *Broker) unregister(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pending, id)
}

// Close denies every pending prompt at once and waits for the Asker calls
// to return. Later prompts are denied without being shown.
func (b *Broker) Close() {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		close(b.closed)
		b.mu.Unlock()
	})
	b.askers.Wait()
}

// newPromptID is 128 random bits: an id nobody but the server can know,
// so an answer can come only from the prompt that carried it.
func newPromptID() (string, error) {
	var buf [16]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return "", err
	}
	return "cwp_" + hex.EncodeToString(buf[:]), nil
}
