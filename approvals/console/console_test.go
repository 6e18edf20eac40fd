package console

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

func prompt(command string) *approvals.Prompt {
	text, escaped := problem.Visible{Multiline: true}.Show(command)
	rule := "permissions.toml: ask exec_shell"
	return &approvals.Prompt{
		Tool: "exec_shell", Summary: "exec_shell: " + command, Reason: "Your rules ask before this command.", Layer: gate.LayerApproval,
		Rule: &rule, Workspace: "/repo", Agent: "claude-code", Codewhale: "0.10.1",
		Deadline: t0.Add(time.Minute).Format(time.RFC3339),
		Inputs:   []approvals.Input{{Field: "command", Text: text, Bytes: len(command), Escaped: escaped}},
		Choices: []approvals.ChoiceItem{
			{ID: gate.ChoiceOnce, Title: "Approve once"},
			{ID: gate.ChoiceSession, Title: "Approve for session: this exact call again"},
			{ID: gate.ChoiceAlways, Title: "Always allow in this repo", Preview: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\n"},
			{ID: gate.ChoiceDeny, Title: "Deny"},
		},
	}
}

// asking is one Ask in flight.
type asking struct {
	choice gate.Choice
	err    error
	done   chan struct{}
}

func ask(c *Console, ctx context.Context, p *approvals.Prompt) *asking {
	a := &asking{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.choice, a.err = c.Ask(ctx, p)
	}()
	return a
}

func (a *asking) answered() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// waitCards waits until n cards are queued.
func waitCards(t *testing.T, c *Console, n int) View {
	t.Helper()
	for i := 0; i < 2000; i++ {
		v := c.View(t0)
		if v.Card != nil && v.Waiting+1 == n {
			return v
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d cards never queued", n)
	return View{}
}

// typeAt types s key by key, one key every gap from at; it returns the
// time after the last key.
func typeAt(c *Console, s string, at time.Time, gap time.Duration) time.Time {
	for _, r := range s {
		k := Key{Kind: KeyRune, Rune: r}
		if r == 0x1b {
			k = Key{Kind: KeyEsc}
		}
		c.Key(k, at)
		at = at.Add(gap)
	}
	return at
}

func newConsole() *Console {
	c := New()
	c.now = func() time.Time { return t0 }
	return c
}

func TestStrayTypingAsACardArrivesApprovesNothing(t *testing.T) {
	c := newConsole()
	a := ask(c, context.Background(), prompt("cargo test"))
	v := waitCards(t, c, 1)
	codes := v.Card.Codes
	// Keys typed before the card was drawn, then while it is drawn: a
	// typist's run, holding every code, d and Esc, 35 ms apart.
	run := "let obj = 1; jjj yy dd " + codes[gate.ChoiceOnce] + codes[gate.ChoiceSession] + codes[gate.ChoiceAlways] + "d\x1bq"
	at := typeAt(c, run, t0, 35*time.Millisecond)
	c.Drawn(at, false)
	at = typeAt(c, run, at, 35*time.Millisecond)
	if a.answered() {
		t.Fatalf("stray typing answered the card: %q %v", a.choice, a.err)
	}
	if v := c.View(at); v.Armed {
		t.Fatal("the card is armed right after typing")
	}
	// The deliberate act: the code, once the card has been still.
	at = at.Add(Guard)
	if v := c.View(at); !v.Armed {
		t.Fatalf("not armed after %v still: %+v", Guard, v)
	}
	typeAt(c, codes[gate.ChoiceOnce], at, 200*time.Millisecond)
	<-a.done
	if a.err != nil || a.choice != gate.ChoiceOnce {
		t.Fatalf("the code of Approve once: %q %v", a.choice, a.err)
	}
	v = c.View(at)
	if v.Card != nil || len(v.Notices) != 1 || !strings.Contains(v.Notices[0], "approved by you (code typed): Approve once") ||
		!strings.Contains(v.Notices[0], "claude-code: exec_shell: cargo test") {
		t.Fatalf("after the answer: %+v", v)
	}
}

func TestACardNotYetDrawnIsNeverArmed(t *testing.T) {
	c := newConsole()
	a := ask(c, context.Background(), prompt("ls"))
	v := waitCards(t, c, 1)
	later := t0.Add(time.Hour)
	if c.View(later).Armed {
		t.Fatal("armed before the UI drew it")
	}
	typeAt(c, v.Card.Codes[gate.ChoiceOnce]+"d", later, time.Second)
	if a.answered() {
		t.Fatal("keys answered a card that was never on the screen")
	}
	c.Close()
	<-a.done
	if !errors.Is(a.err, approvals.ErrGone) {
		t.Fatalf("closing: %v", a.err)
	}
}

func TestDAndEscDenyAndOtherKeysDoNothing(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want gate.Choice
		says string
	}{
		{"d", gate.ChoiceDeny, "denied by you (d)"},
		{"\x1b", "", "denied by you (dismissed with Esc)"},
	} {
		c := newConsole()
		a := ask(c, context.Background(), prompt("ls"))
		waitCards(t, c, 1)
		c.Drawn(t0, false)
		at := t0.Add(Guard)
		for _, r := range "qyn\r" {
			c.Key(Key{Kind: KeyRune, Rune: r}, at)
			at = at.Add(Guard)
		}
		c.Key(Key{Kind: KeyOther}, at)
		at = at.Add(Guard)
		if a.answered() {
			t.Fatalf("q y n Enter or a control key answered: %q", a.choice)
		}
		typeAt(c, tc.key, at, 0)
		<-a.done
		if a.err != nil || a.choice != tc.want {
			t.Errorf("%q: %q %v", tc.key, a.choice, a.err)
		}
		if n := c.View(at).Notices; len(n) != 1 || !strings.Contains(n[0], tc.says) {
			t.Errorf("%q: notices %q", tc.key, n)
		}
	}
}

func TestAWrongLetterDropsTheCodeAndReArms(t *testing.T) {
	c := newConsole()
	a := ask(c, context.Background(), prompt("ls"))
	v := waitCards(t, c, 1)
	c.Drawn(t0, false)
	code := v.Card.Codes[gate.ChoiceAlways]
	at := t0.Add(Guard)
	c.Key(Key{Kind: KeyRune, Rune: rune(code[0])}, at)
	if got := c.View(at).Typed; got != code[:1] {
		t.Fatalf("typed = %q", got)
	}
	// A code under way takes its next letter at once...
	c.Key(Key{Kind: KeyRune, Rune: rune(code[1])}, at.Add(10*time.Millisecond))
	// ...but a wrong one drops it, and the guard starts again.
	c.Key(Key{Kind: KeyRune, Rune: 'a'}, at.Add(20*time.Millisecond))
	v = c.View(at.Add(30 * time.Millisecond))
	if v.Typed != "" || v.Armed {
		t.Fatalf("after a wrong letter: typed %q, armed %v", v.Typed, v.Armed)
	}
	typeAt(c, code, at.Add(40*time.Millisecond), 10*time.Millisecond)
	if a.answered() {
		t.Fatal("a code typed before the guard ran out again approved")
	}
	typeAt(c, code, at.Add(2*Guard), 10*time.Millisecond)
	<-a.done
	if a.choice != gate.ChoiceAlways {
		t.Fatalf("always's code: %q", a.choice)
	}
}

func TestAQueueOfThreeShowsOneCardAtATime(t *testing.T) {
	c := newConsole()
	var asks []*asking
	for _, cmd := range []string{"one", "two", "three"} {
		asks = append(asks, ask(c, context.Background(), prompt(cmd)))
		waitCards(t, c, len(asks))
	}
	at := t0
	for i, want := range []gate.Choice{gate.ChoiceDeny, gate.ChoiceOnce, ""} {
		v := c.View(at)
		if v.Card == nil || v.Waiting != 2-i {
			t.Fatalf("card %d: %+v", i, v)
		}
		screen := strings.Join(Render(v, nil, 100, 40, at).Rows, "\n")
		if i < 2 && !strings.Contains(screen, []string{"2 more waiting", "1 more waiting"}[i]) {
			t.Errorf("card %d's screen does not count the others:\n%s", i, screen)
		}
		// The key that answered the card before is not taken by this one.
		if i > 0 {
			c.Key(Key{Kind: KeyRune, Rune: 'd'}, at)
			if c.View(at).Card != v.Card {
				t.Fatalf("the key after an answer answered the next card")
			}
		}
		c.Drawn(at, false)
		at = at.Add(Guard)
		switch want {
		case gate.ChoiceDeny:
			typeAt(c, "d", at, 0)
		case gate.ChoiceOnce:
			typeAt(c, v.Card.Codes[gate.ChoiceOnce], at, 0)
		default:
			typeAt(c, "\x1b", at, 0)
		}
	}
	for i, a := range asks {
		<-a.done
		if want := []gate.Choice{gate.ChoiceDeny, gate.ChoiceOnce, ""}[i]; a.choice != want {
			t.Errorf("ask %d: %q, want %q", i, a.choice, want)
		}
	}
}

func TestACardWhoseContextEndsLeavesWithANotice(t *testing.T) {
	c := newConsole()
	deadline, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	gone, hangup := context.WithCancelCause(context.Background())
	a := ask(c, deadline, prompt("expires"))
	b := ask(c, gone, prompt("withdrawn"))
	waitCards(t, c, 2)
	<-a.done
	hangup(remote.ErrClientGone)
	<-b.done
	if !errors.Is(a.err, context.DeadlineExceeded) || b.err == nil {
		t.Fatalf("errors: %v, %v", a.err, b.err)
	}
	v := c.View(t0)
	if v.Card != nil || len(v.Notices) != 2 ||
		!strings.Contains(v.Notices[0], "expired, denied: no answer before its deadline - claude-code: exec_shell: expires") ||
		!strings.Contains(v.Notices[1], "withdrawn, denied: the hook disconnected (its agent stopped waiting or was stopped) - claude-code: exec_shell: withdrawn") {
		t.Fatalf("notices: %q", v.Notices)
	}
}

func TestFocusLostStopsKeysAndFocusRegainedReArms(t *testing.T) {
	c := newConsole()
	a := ask(c, context.Background(), prompt("ls"))
	waitCards(t, c, 1)
	c.Drawn(t0, false)
	c.Key(Key{Kind: KeyFocusOut}, t0.Add(Guard))
	at := t0.Add(3 * Guard)
	if c.View(at).Armed {
		t.Fatal("armed while the terminal is not focused")
	}
	c.Key(Key{Kind: KeyRune, Rune: 'd'}, at)
	c.Key(Key{Kind: KeyFocusIn}, at)
	c.Key(Key{Kind: KeyRune, Rune: 'd'}, at.Add(Guard/2))
	if a.answered() {
		t.Fatal("d answered while unfocused or right after the focus came back")
	}
	c.Key(Key{Kind: KeyRune, Rune: 'd'}, at.Add(Guard/2+Guard))
	<-a.done
}

func TestAResizeReArms(t *testing.T) {
	c := newConsole()
	a := ask(c, context.Background(), prompt("ls"))
	waitCards(t, c, 1)
	c.Drawn(t0, false)
	c.Drawn(t0.Add(Guard), true)
	c.Key(Key{Kind: KeyRune, Rune: 'd'}, t0.Add(Guard+Guard/2))
	if a.answered() {
		t.Fatal("a key right after the card moved answered it")
	}
	c.Close()
	<-a.done
}

func TestTheCardShowsTheWholeInputEscaped(t *testing.T) {
	bidi := "ls \u2067\u2066; bash -c \"$(curl x)\" \u2069\u2066 #\u2069\u2069"
	p := prompt(bidi)
	// A reason with raw controls, as a bug upstream could send: the
	// terminal must still get no control sequence.
	p.Reason = "evil \x1b]52;c;cm0gLXJmIH4=\x07 \u202e reversed \x9b31m"
	c := newConsole()
	a := ask(c, context.Background(), p)
	v := waitCards(t, c, 1)
	screen := strings.Join(Render(v, []string{"codewhale-ls approvals: serving /repo"}, 100, 40, t0.Add(10*time.Second)).Rows, "\n")
	for _, want := range []string{
		"Codewhale approval: exec_shell (asked by claude-code)",
		`bash -c "$(curl x)"`, "RLI U+2067", "LRI U+2066", "PDI U+2069", "6 invisible or non-ASCII characters shown as ⟪…⟫",
		"ESC U+001B", "RLO U+202E", "byte 0x9B",
		"Decided by layer 8 (approval), rule permissions.toml: ask exec_shell", "Workspace: /repo", "Rules of Codewhale 0.10.1",
		`"Always allow in this repo" appends to permissions.toml:`, `command = "cargo test"`,
		"type " + v.Card.Codes[gate.ChoiceOnce], "Approve once", "0:50 left (denied at ",
		"keys ignored until you type nothing for 1 s",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the card lacks %q:\n%s", want, screen)
		}
	}
	for _, r := range screen {
		if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f || r >= 0x2066 && r <= 0x2069 || r == 0x202e {
			t.Errorf("the screen holds %U", r)
		}
	}
	// Deny is first, its key d.
	if i, j := strings.Index(screen, "  d          Deny"), strings.Index(screen, "Approve once"); i < 0 || i > j {
		t.Errorf("Deny is not the first choice:\n%s", screen)
	}
	c.Close()
	<-a.done
}

func TestALongInputScrollsAndShowsItsEnd(t *testing.T) {
	c := newConsole()
	a := ask(c, context.Background(), prompt("rm -rf ~/project"+strings.Repeat("\n", 40)+"echo done"))
	v := waitCards(t, c, 1)
	s := Render(v, nil, 80, 24, t0)
	screen := strings.Join(s.Rows, "\n")
	if len(s.Rows) > 24 || !strings.Contains(screen, "rm -rf ~/project") || !strings.Contains(screen, "ends: echo done") || !strings.Contains(screen, "more than fits") {
		t.Fatalf("a long card:\n%s", screen)
	}
	for _, r := range s.Rows {
		if Width(r) > 80 {
			t.Errorf("a row wider than the screen: %q", r)
		}
	}
	c.Drawn(t0, false)
	c.Key(Key{Kind: KeyEnd}, t0)
	v = c.View(t0)
	s = Render(v, nil, 80, 24, t0)
	if s.Scroll == 0 || strings.Contains(strings.Join(s.Rows, "\n"), "rm -rf ~/project") || !strings.Contains(strings.Join(s.Rows, "\n"), "  echo done") {
		t.Fatalf("End did not scroll to the end (scroll %d):\n%s", s.Scroll, strings.Join(s.Rows, "\n"))
	}
	c.Close()
	<-a.done
}

func TestCodesAreThreeLettersWithDistinctFirstLetters(t *testing.T) {
	for i := 0; i < 200; i++ {
		card, err := newCard(prompt("x"), t0, defaultRandom)
		if err != nil {
			t.Fatal(err)
		}
		first := map[byte]bool{}
		for _, code := range card.Codes {
			if len(code) != 3 || strings.Trim(code, codeLetters) != "" || first[code[0]] {
				t.Fatalf("codes %v", card.Codes)
			}
			first[code[0]] = true
		}
		if len(card.Codes) != 3 || card.Choices[0].ID != gate.ChoiceDeny {
			t.Fatalf("choices %v", card.Choices)
		}
	}
	if _, err := newCard(prompt("x"), t0, bytes.NewReader(nil)); err == nil {
		t.Fatal("no random bytes, yet codes")
	}
}

func TestDecoderReadsKeysAcrossReads(t *testing.T) {
	var d Decoder
	var got []Key
	for _, chunk := range []string{"a\x1b", "[A\x1b[", "I\x1b[O\x03\x0c", "\xc3", "\xa9\x1b[5~\x1bOB\x1bx", "\x1b"} {
		got = append(got, d.Feed([]byte(chunk))...)
	}
	if !d.Pending() {
		t.Fatal("a lone ESC is not pending")
	}
	got = append(got, d.Flush()...)
	want := []Key{{KeyRune, 'a'}, {Kind: KeyUp}, {Kind: KeyFocusIn}, {Kind: KeyFocusOut}, {Kind: KeyInterrupt}, {Kind: KeyRedraw},
		{Kind: KeyOther}, {Kind: KeyPageUp}, {Kind: KeyDown}, {Kind: KeyOther}, {Kind: KeyEsc}}
	if len(got) != len(want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("key %d: %v, want %v", i, got[i], want[i])
		}
	}
	if keys := d.Feed([]byte("\x1b[" + strings.Repeat("1;", 40))); len(keys) != 1 || keys[0].Kind != KeyOther || d.Pending() {
		t.Errorf("an endless sequence: %v (pending %v)", keys, d.Pending())
	}
}

func TestPlanAlert(t *testing.T) {
	for _, tc := range []struct {
		mode    AlertMode
		focus   Focus
		desktop bool
		want    AlertPlan
	}{
		{AlertDesktop, FocusOut, true, AlertPlan{NotifySend: true, Escape: true, Bell: true}},
		{AlertDesktop, FocusOut, false, AlertPlan{Escape: true, Bell: true}},
		{AlertNotify, FocusOut, true, AlertPlan{Escape: true, Bell: true}},
		{AlertBell, FocusOut, true, AlertPlan{Bell: true}},
		{AlertDesktop, FocusUnknown, true, AlertPlan{Bell: true}},
		{AlertDesktop, FocusIn, true, AlertPlan{}},
		{AlertNone, FocusOut, true, AlertPlan{}},
	} {
		if got := PlanAlert(tc.mode, tc.focus, tc.desktop); got != tc.want {
			t.Errorf("%s %v %v: %+v, want %+v", tc.mode, tc.focus, tc.desktop, got, tc.want)
		}
	}
	if _, err := ParseAlert("loud"); err == nil {
		t.Error("--alert loud accepted")
	}
}

func TestRepositoriesServeWhatTheyWereGivenAndOnlyOurs(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "sub")
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	uid := os.Getuid()
	roots, err := CleanRoots([]string{root + "/./"}, uid)
	if err != nil || len(roots) != 1 || roots[0] != root {
		t.Fatalf("CleanRoots: %v %v", roots, err)
	}
	given := Repositories{Roots: roots, UID: uid}
	if err := given.Serves(root); err != nil {
		t.Errorf("the root itself: %v", err)
	}
	if err := given.Serves(inside); err != nil {
		t.Errorf("inside the root: %v", err)
	}
	for _, other := range []string{t.TempDir(), root + "-sibling", filepath.Dir(root)} {
		if err := given.Serves(other); err == nil {
			t.Errorf("%s served", other)
		}
	}
	anyOfOurs := Repositories{UID: uid}
	if err := anyOfOurs.Serves(inside); err != nil {
		t.Errorf("by default, our directory: %v", err)
	}
	if err := (Repositories{UID: uid + 1}).Serves(inside); err == nil || !strings.Contains(err.Error(), "not owned by this user") {
		t.Errorf("another user's directory: %v", err)
	}
	if _, err := CleanRoots([]string{filepath.Join(root, "missing")}, uid); err == nil {
		t.Error("a missing repository accepted")
	}
}

func TestTheCardsNotesAreShownOnceWithoutTheReasonAgain(t *testing.T) {
	p := prompt("cargo test | sh")
	p.Detail = p.Reason + " (a forced hold: session grants and saved rules cannot pass it, so only this call can be approved)"
	card, err := newCard(p, t0, defaultRandom)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Join(card.BodyLines(), "\n")
	if strings.Count(body, p.Reason) != 1 || !strings.Contains(body, "Note: (a forced hold: session grants") {
		t.Fatalf("the card's text:\n%s", body)
	}
	p.Detail = "another text"
	if body := strings.Join(card.BodyLines(), "\n"); !strings.Contains(body, "Detail: another text") {
		t.Fatalf("a detail unlike the reason:\n%s", body)
	}
}

func TestWrapKeepsEscapesWholeAndInputsExact(t *testing.T) {
	for _, tc := range []struct {
		line string
		cols int
		want []string
	}{
		// Prose breaks after a space.
		{"Reason: a human decides whether to start it", 20, []string{"Reason: a human ", "decides whether to ", "start it"}},
		// An input's text breaks at the edge, its spaces where they are.
		{"  cargo  build --release", 12, []string{"  cargo  bui", "  ld --relea", "  se"}},
		// An escape moves whole to the next row, unless that would leave
		// most of a row empty.
		{"  " + strings.Repeat("x", 30) + "⟪PDI U+2069⟫", 40, []string{"  " + strings.Repeat("x", 30), "  ⟪PDI U+2069⟫"}},
		{"  ls #⟪PDI U+2069⟫", 12, []string{"  ls #⟪PDI U", "  +2069⟫"}},
		{"  ab⟪PDI U+2069⟫", 16, []string{"  ab⟪PDI U+2069⟫"}},
		// Wide characters take two cells.
		{"  ⟪漢 U+6F22⟫", 8, []string{"  ⟪漢 U+", "  6F22⟫"}},
	} {
		got := wrap(tc.line, tc.cols)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.line, tc.cols, got, tc.want)
		}
		for _, row := range got {
			if Width(row) > tc.cols {
				t.Errorf("wrap(%q, %d): row %q is wider", tc.line, tc.cols, row)
			}
		}
	}
}

// Issue 26: the card shows a token in the command exactly, as it will
// run; the receipt line left after the answer masks it.
func TestTheReceiptMasksSecretsTheCardShows(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3", 12) // format-valid, not a real token
	c := newConsole()
	a := ask(c, context.Background(), prompt("curl -H 'Authorization: token "+token+"' https://api.github.com"))
	v := waitCards(t, c, 1)
	if !strings.Contains(strings.Join(v.Card.BodyLines(), "\n"), token) {
		t.Fatalf("the card does not show the command as it will run: %q", v.Card.BodyLines())
	}
	c.Drawn(t0, false)
	at := t0.Add(Guard)
	typeAt(c, "d", at, 0)
	<-a.done
	n := c.View(at).Notices
	if len(n) != 1 || strings.Contains(n[0], "ghp_") || !strings.Contains(n[0], "token ⟪secret: github token⟫' https://api.github.com") {
		t.Errorf("notices %q: want the command with its token masked", n)
	}
}
