package approvals

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// scripted answers every prompt with reply, or blocks until its context
// ends when block is set.
type scripted struct {
	reply gate.Choice
	err   error
	block bool

	mu   sync.Mutex
	seen []*Prompt
}

func (s *scripted) Ask(ctx context.Context, p *Prompt) (gate.Choice, error) {
	s.mu.Lock()
	s.seen = append(s.seen, p)
	s.mu.Unlock()
	if s.block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return s.reply, s.err
}

func card() *Prompt {
	return &Prompt{Tool: "bash", Summary: "bash: cargo test", Default: gate.ChoiceDeny, Choices: []ChoiceItem{
		{ID: gate.ChoiceOnce, Title: "Approve once"}, {ID: gate.ChoiceSession, Title: "Approve for session"}, {ID: gate.ChoiceDeny, Title: "Deny"}}}
}

func TestBrokerAnswers(t *testing.T) {
	cases := []struct {
		name  string
		asker *scripted
		want  gate.Choice
		why   string // a substring of the answer's Why
	}{
		{"once", &scripted{reply: gate.ChoiceOnce}, gate.ChoiceOnce, ""},
		{"session", &scripted{reply: gate.ChoiceSession}, gate.ChoiceSession, ""},
		{"deny", &scripted{reply: gate.ChoiceDeny}, gate.ChoiceDeny, ""},
		{"null", &scripted{reply: ""}, gate.ChoiceDismissed, ""},
		{"not offered", &scripted{reply: gate.ChoiceAlways}, gate.ChoiceDismissed, "did not offer"},
		{"unknown", &scripted{reply: "yes please"}, gate.ChoiceDismissed, "did not offer"},
		{"error", &scripted{err: errors.New("boom")}, gate.ChoiceDismissed, "boom"},
		{"gone", &scripted{err: ErrGone}, gate.ChoiceDisconnected, ""},
		{"timeout", &scripted{block: true}, gate.ChoiceTimeout, "no answer within"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBroker(c.asker, 50*time.Millisecond, "")
			defer b.Close()
			p := card()
			a := b.Ask(context.Background(), p, Bound{})
			if a.Choice != c.want {
				t.Fatalf("choice %q, want %q (%s)", a.Choice, c.want, a.Why)
			}
			if !strings.Contains(a.Why, c.why) {
				t.Errorf("why %q, want it to mention %q", a.Why, c.why)
			}
			if b.Pending() != 0 {
				t.Errorf("%d pending after the answer", b.Pending())
			}
		})
	}
}

func TestBrokerPromptIDsAreUnguessable(t *testing.T) {
	asker := &scripted{reply: gate.ChoiceOnce}
	b := NewBroker(asker, time.Second, "")
	defer b.Close()
	seen := map[string]bool{}
	for range 100 {
		p := card()
		b.Ask(context.Background(), p, Bound{})
		if !regexp.MustCompile(`^cwp_[0-9a-f]{32}$`).MatchString(p.ID) || seen[p.ID] {
			t.Fatalf("prompt id %q: want 128 fresh random bits", p.ID)
		}
		seen[p.ID] = true
		if _, err := time.Parse(time.RFC3339, p.Deadline); err != nil {
			t.Fatalf("deadline %q: %v", p.Deadline, err)
		}
	}
}

// TestBrokerCloseDeniesPending: many prompts wait at once; closing the
// broker ends every one as disconnected, at once, and leaves no goroutine.
func TestBrokerCloseDeniesPending(t *testing.T) {
	b := NewBroker(&scripted{block: true}, time.Hour, "")
	const n = 50
	answers := make(chan gate.Answer, n)
	for range n {
		go func() { answers <- b.Ask(context.Background(), card(), Bound{}) }()
	}
	for b.Pending() < n {
		time.Sleep(time.Millisecond)
	}
	b.Close()
	for range n {
		if a := <-answers; a.Choice != gate.ChoiceDisconnected {
			t.Fatalf("choice %q, want disconnected", a.Choice)
		}
	}
	if a := b.Ask(context.Background(), card(), Bound{}); a.Choice != gate.ChoiceDisconnected {
		t.Errorf("a prompt after Close: %q, want disconnected", a.Choice)
	}
}

func TestBrokerCancelledRequest(t *testing.T) {
	b := NewBroker(&scripted{block: true}, time.Hour, "")
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for b.Pending() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if a := b.Ask(ctx, card(), Bound{}); a.Choice != gate.ChoiceDismissed || a.Why != "the authorize request was cancelled" {
		t.Fatalf("answer %+v, want dismissed because cancelled", a)
	}
}

func TestBrokerPromptEndsAtTheCallersDeadline(t *testing.T) {
	b := NewBroker(&scripted{block: true}, time.Hour, "")
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	p := card()
	a := b.Ask(ctx, p, Bound{})
	if a.Choice != gate.ChoiceTimeout || !strings.Contains(a.Why, "an agent's hook timeout") {
		t.Fatalf("answer = %+v, want a timeout naming the caller's deadline", a)
	}
	due, err := time.Parse(time.RFC3339, p.Deadline)
	if err != nil {
		t.Fatal(err)
	}
	if due.After(time.Now().Add(time.Minute)) {
		t.Fatalf("the card shows %s, the editor's hour, not the caller's deadline", p.Deadline)
	}
}

func TestBrokerPendingAgents(t *testing.T) {
	asker := &scripted{block: true}
	b := NewBroker(asker, time.Hour, "")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, agent := range []string{"cursor", "", "claude-code", "cursor"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := card()
			p.Agent = agent
			b.Ask(ctx, p, Bound{})
		}()
	}
	for b.Pending() < 4 {
		time.Sleep(time.Millisecond)
	}
	if got := strings.Join(b.PendingAgents(), ","); got != "claude-code,cursor" {
		t.Errorf("PendingAgents = %q", got)
	}
	cancel()
	wg.Wait()
	b.Close()
	if got := b.PendingAgents(); len(got) != 0 {
		t.Errorf("after the prompts ended: %q", got)
	}
}
