package console

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets"
)

// Guard is how long a card must have been on the screen, focused and
// untouched, before a key answers it: about the time a person needs to
// read what it asks; a typist's keys come much faster, and each one
// restarts it (the Neovim card's guard_ms).
const Guard = time.Second

// maxNotices bounds the lines of what happened that the console keeps.
const maxNotices = 50

// Console is the queue of cards and the state of the one on the screen.
// It is the approvals.Asker of the console's Authorizer: each Ask waits
// in the queue until its card is answered, its context ends (the
// deadline, the hook gone) or the console closes. It is the one owner of
// that state; every method is safe to call from any goroutine.
type Console struct {
	random  io.Reader
	now     func() time.Time
	changed chan struct{}

	mu      sync.Mutex
	closed  bool
	cards   []*Card // cards[0] is on the screen
	notices []string
	// The state of cards[0]: when it was drawn (zero until the UI says
	// so), since when it has been still, what of a code was typed, how
	// far its text is scrolled.
	drawn      time.Time
	stillSince time.Time
	typed      string
	scroll     int
	focus      Focus
	alerts     int
}

// Focus is what the terminal said of its focus.
type Focus int

const (
	// FocusUnknown: the terminal sent no focus report (many do not;
	// tmux only with focus-events on).
	FocusUnknown Focus = iota
	FocusIn
	FocusOut
)

// New makes an empty console.
func New() *Console {
	return &Console{random: defaultRandom, now: time.Now, changed: make(chan struct{}, 1)}
}

// Changed is signalled whenever what the screen shows changed: a card
// arrived or ended, a key did something, a notice was added.
func (c *Console) Changed() <-chan struct{} { return c.changed }

func (c *Console) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Ask queues p's card and waits for its answer (approvals.Asker). A card
// whose context ends leaves the queue with a notice saying why; the
// console closing ends every card with approvals.ErrGone.
func (c *Console) Ask(ctx context.Context, p *approvals.Prompt) (gate.Choice, error) {
	card, err := c.add(p)
	if err != nil {
		return "", err
	}
	select {
	case choice, ok := <-card.answer:
		if !ok {
			return "", approvals.ErrGone
		}
		return choice, nil
	case <-ctx.Done():
		if c.withdraw(card, endedBy(ctx)) {
			return "", ctx.Err()
		}
		// Answered in the same instant: the answer stands.
		choice, ok := <-card.answer
		if !ok {
			return "", approvals.ErrGone
		}
		return choice, nil
	}
}

// endedBy says why a card's context ended, for its notice.
func endedBy(ctx context.Context) string {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, remote.ErrClientGone):
		return "withdrawn, denied: the hook disconnected (its agent stopped waiting or was stopped)"
	case errors.Is(cause, context.DeadlineExceeded):
		return "expired, denied: no answer before its deadline"
	default:
		return "ended, denied: " + cause.Error()
	}
}

func (c *Console) add(p *approvals.Prompt) (*Card, error) {
	card, err := newCard(p, c.now(), c.random)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, approvals.ErrGone
	}
	c.cards = append(c.cards, card)
	if len(c.cards) == 1 {
		c.present()
	}
	if c.focus != FocusIn {
		c.alerts++
	}
	c.signal()
	return card, nil
}

// present resets the state for the card now first: nothing typed, its
// text from the top, and not drawn yet (so not still either).
func (c *Console) present() {
	c.drawn, c.stillSince, c.typed, c.scroll = time.Time{}, time.Time{}, "", 0
}

// withdraw takes card out of the queue with a notice; false when it had
// been answered already.
func (c *Console) withdraw(card *Card, why string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.cards {
		if q == card {
			c.remove(i)
			c.notice(card, why)
			return true
		}
	}
	return false
}

// remove takes the i-th card out of the queue.
func (c *Console) remove(i int) {
	c.cards = append(c.cards[:i], c.cards[i+1:]...)
	if i == 0 {
		c.present()
	}
	c.signal()
}

// notice adds a line about card: the time, the agent and the call, what
// happened.
func (c *Console) notice(card *Card, what string) {
	p := card.Prompt
	who := "Codewhale"
	if p.Agent != "" {
		who = shown(p.Agent)
	}
	// The receipt line outlives the card, so secrets in the call are
	// masked there (gate/secrets; issue 26, "Secrets stay out"). The card
	// itself keeps them: a person approves exactly what will run, which
	// the masking "before anything is written or shown" must not
	// override (README.md, "What the card shows").
	summary, _ := secrets.Mask(shown(p.Summary))
	c.addNotice(c.now().Format("15:04:05") + " " + what + " - " + who + ": " + summary)
}

func (c *Console) addNotice(line string) {
	c.notices = append(c.notices, line)
	if len(c.notices) > maxNotices {
		c.notices = c.notices[len(c.notices)-maxNotices:]
	}
	c.signal()
}

// Notice adds a line of the console's own (a notification that failed).
func (c *Console) Notice(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addNotice(c.now().Format("15:04:05") + " " + shown(line))
}

// Drawn is told by the UI each time it has drawn the screen, with whether
// the layout changed (a resize): the card on it is on the screen from
// the first, and a moved card is a new one to read.
func (c *Console) Drawn(now time.Time, relaid bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cards) == 0 {
		return
	}
	if c.drawn.IsZero() || relaid {
		if c.drawn.IsZero() {
			c.drawn = now
		}
		c.rearm(now)
	}
}

// rearm starts the guard again.
func (c *Console) rearm(now time.Time) {
	c.stillSince = now
	c.signal()
}

// armed reports whether a key may answer the card on the screen now.
func (c *Console) armed(now time.Time) bool {
	return len(c.cards) > 0 && !c.drawn.IsZero() && c.focus != FocusOut && now.Sub(c.stillSince) >= Guard
}

// Key handles one key typed (or a terminal report) at now. Before the
// guard has run out every key only re-arms it. After it: d denies, Esc
// dismisses (a deny the session does not remember, as in the editors);
// a code's letters, typed in order, approve its choice; every key of a
// code re-arms the guard, and the next letter is still taken because a
// code is under way; any other key drops what was typed and re-arms.
func (c *Console) Key(k Key, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch k.Kind {
	case KeyFocusIn:
		c.focus = FocusIn
		c.typed = ""
		c.rearm(now)
		return
	case KeyFocusOut:
		c.focus = FocusOut
		c.typed = ""
		c.rearm(now)
		return
	}
	if len(c.cards) == 0 {
		return
	}
	card := c.cards[0]
	ready := c.armed(now)
	switch k.Kind {
	case KeyUp, KeyDown, KeyPageUp, KeyPageDown, KeyHome, KeyEnd:
		c.scrollBy(k.Kind)
		c.typed = ""
		c.rearm(now)
		return
	case KeyRune:
		if scroll, ok := scrollRunes[k.Rune]; ok && c.typed == "" {
			c.scrollBy(scroll)
			c.rearm(now)
			return
		}
	}
	if ready && c.typed == "" {
		switch {
		case k.Kind == KeyRune && k.Rune == 'd':
			c.answer(card, gate.ChoiceDeny, "denied by you (d)")
			return
		case k.Kind == KeyEsc:
			c.answer(card, "", "denied by you (dismissed with Esc)")
			return
		}
	}
	if k.Kind == KeyRune && (ready || c.typed != "") {
		soFar := c.typed + string(k.Rune)
		for _, ch := range card.Choices {
			code, ok := card.Codes[ch.ID]
			if !ok || len(soFar) > len(code) || code[:len(soFar)] != soFar {
				continue
			}
			if soFar == code {
				c.answer(card, ch.ID, receipt(ch))
				return
			}
			c.typed = soFar
			c.rearm(now)
			return
		}
	}
	c.typed = ""
	c.rearm(now)
}

// scrollRunes are the letters that scroll the text and never answer:
// none is a code letter, d or a key of Deny.
var scrollRunes = map[rune]KeyKind{'j': KeyDown, 'k': KeyUp, ' ': KeyPageDown, 'g': KeyHome, 'G': KeyEnd}

// scrollBy moves the card's text; Render keeps it within the text.
func (c *Console) scrollBy(k KeyKind) {
	switch k {
	case KeyUp:
		c.scroll--
	case KeyDown:
		c.scroll++
	case KeyPageUp:
		c.scroll -= pageRows
	case KeyPageDown:
		c.scroll += pageRows
	case KeyHome:
		c.scroll = 0
	case KeyEnd:
		c.scroll = endOfText
	}
	c.scroll = max(0, c.scroll)
}

// pageRows is how far a page key scrolls.
const pageRows = 10

// endOfText is a scroll past any text: Render shows its end, and the UI
// sets the scroll to what it drew (SetScroll).
const endOfText = 1 << 30

func receipt(ch approvals.ChoiceItem) string {
	return "approved by you (code typed): " + Title(ch)
}

// answer ends the card on the screen with choice ("" dismissed).
func (c *Console) answer(card *Card, choice gate.Choice, what string) {
	card.answer <- choice
	c.remove(0)
	c.notice(card, what)
}

// Close ends every waiting card (their Asks return approvals.ErrGone, a
// deny) and refuses new ones.
func (c *Console) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	for _, card := range c.cards {
		close(card.answer)
	}
	c.cards = nil
	c.signal()
}

// View is what the screen shows at one moment.
type View struct {
	// Card is the card on the screen; nil when none waits.
	Card *Card
	// Waiting is how many more cards wait behind it.
	Waiting int
	// Typed is what of a code was typed so far.
	Typed string
	// Armed: a key may answer the card now. ArmsAt is when it will be,
	// if nothing is typed meanwhile (zero when it is armed or cannot be).
	Armed  bool
	ArmsAt time.Time
	Focus  Focus
	Scroll int
	// Notices are the last lines of what happened, oldest first.
	Notices []string
	// Alerts counts the cards that arrived while the terminal was not
	// known to be focused: the UI alerts when it grows.
	Alerts int
}

// View is the screen's state at now.
func (c *Console) View(now time.Time) View {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := View{Focus: c.focus, Notices: append([]string(nil), c.notices...), Alerts: c.alerts, Typed: c.typed, Scroll: c.scroll}
	if len(c.cards) > 0 {
		v.Card, v.Waiting = c.cards[0], len(c.cards)-1
		v.Armed = c.armed(now)
		if !v.Armed && !c.drawn.IsZero() && c.focus != FocusOut {
			v.ArmsAt = c.stillSince.Add(Guard)
		}
	}
	return v
}

// SetScroll keeps the scroll within what Render could show.
func (c *Console) SetScroll(card *Card, scroll int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cards) > 0 && c.cards[0] == card {
		c.scroll = scroll
	}
}
