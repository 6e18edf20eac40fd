//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/console"
	"github.com/codewhale-ls/codewhale-ls/approvals/otelexport"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"

	"golang.org/x/term"
)

// approvalsCommand runs the terminal approval console (codewhale-ls
// approvals [REPO...]): it serves the user's console socket, so a hook
// whose workspace no editor serves asks here, and puts each card on this
// terminal (approvals/console decides what keys do; this file reads the
// keys and draws). It ends on Ctrl-C or a signal, denying what waits, and
// leaves the terminal as it found it on every way out.
func approvalsCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(msg string) int {
		fmt.Fprintln(stderr, "codewhale-ls approvals:", msg)
		return 1
	}
	fs, err := parseFlags(args, []string{"config", "codewhale-version", "alert"}, []string{"exact"})
	if err != nil {
		return fail(err.Error())
	}
	alert := console.AlertDesktop
	if v, ok := fs.values["alert"]; ok {
		if alert, err = console.ParseAlert(v); err != nil {
			return fail(err.Error())
		}
	}
	if _, _, err := release.Named(fs.codewhaleVersion(), nil); err != nil {
		return fail(err.Error())
	}
	in, ok := stdin.(*os.File)
	out, okOut := stdout.(*os.File)
	if !ok || !okOut || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return fail(console.ErrNotTerminal.Error() + ". Run it in a terminal; hooks find it on its socket by themselves.")
	}
	roots, err := console.CleanRoots(fs.args, os.Getuid())
	if err != nil {
		return fail(err.Error())
	}
	repos := console.Repositories{Roots: roots, UID: os.Getuid()}
	env := config.OSEnv{}
	const consoleName = "the approval console"
	loadOpts := func(string) config.Options { return config.Options{ConfigFlag: fs.values["config"], Env: env} }
	// The log every decider of this user writes (the hook's, the
	// editor's): under the Codewhale home, which no workspace changes.
	paths, _ := config.ResolvePaths(loadOpts(""))
	// What the OpenTelemetry export could not deliver is said when the
	// console stops, after the cards are off the screen.
	export := func(s approvals.ExportSettings) (approvals.ReceiptSink, error) {
		sink, err := otelexport.NewSink(s, env.Getenv)
		return otelexport.Reporting(sink, func(err error) { fmt.Fprintln(stderr, "codewhale-ls approvals:", err) }), err
	}
	log := approvals.OpenUserRecorder(approvals.DefaultDecisionLogPath(paths.CodewhaleDir), paths.CodewhaleDir, approvals.RecorderOptions{Where: consoleName}, export)
	cards := console.New()
	authz := approvals.New(approvals.Config{
		Asker: cards, ShownBy: consoleName, Hooks: hooks.ShellRunner{}, Log: log, Exact: fs.bools["exact"],
		Policies: console.Policies{Repositories: repos, Options: loadOpts, Release: func(ctx context.Context, ws string) (release.Choice, error) {
			return fs.codewhale(ctx, ws)
		}},
	})
	srv, err := remote.ListenConsole(repos.Serves, authz.AuthorizeHook)
	if err != nil {
		authz.Close()
		cards.Close()
		return fail(err.Error())
	}
	header := []string{
		"codewhale-ls approvals: serving " + repos.Describe(),
		"socket " + srv.Path(),
		"Ctrl-C stops it (cards waiting are denied) | alert when unfocused: " + string(alert),
	}
	if failure := log.Failure(); failure != nil {
		header = append(header, "the decision log cannot be written, so every approval is refused: "+failure.Error())
	}
	ui := &terminalUI{in: in, out: out, cards: cards, header: header, alert: alert, dumb: dumbTerminal(os.Getenv("TERM"))}
	why := ui.run()
	// The socket closes first: a hook waiting on a card sees the console
	// go and denies at once, rather than taking a cut-short answer.
	srv.Close()
	authz.Close()
	cards.Close()
	ui.notifying.Wait()
	fmt.Fprintf(stderr, "codewhale-ls approvals stopped (%s); hooks now ask an editor, or are denied saying how to get an approver.\n", why)
	return 0
}

// dumbTerminal: a terminal that cannot move its cursor gets each card
// printed once, not redrawn.
func dumbTerminal(term string) bool { return term == "" || term == "dumb" }

// The sequences the console writes: plain ANSI that every terminal
// emulator and tmux understands, no terminal query.
const (
	focusReportsOn  = "\x1b[?1004h"
	focusReportsOff = "\x1b[?1004l"
	hideCursor      = "\x1b[?25l"
	showCursor      = "\x1b[?25h"
	clearScreen     = "\x1b[H\x1b[2J"
	cursorHome      = "\x1b[H"
	clearLine       = "\x1b[K"
	clearBelow      = "\x1b[J"
	bell            = "\a"
)

// terminalUI owns the terminal: raw mode, the keys read, the screen
// drawn, the alerts sent.
type terminalUI struct {
	in, out *os.File
	cards   *console.Console
	header  []string
	alert   console.AlertMode
	dumb    bool

	w         *bufio.Writer
	cols      int
	rows      int
	drawn     []string
	dumbShape string
	alerts    int
	notifying sync.WaitGroup // notify-send processes, each bounded by notifyTimeout
}

// notifyTimeout bounds a notify-send run: a desktop that does not answer
// must not keep a process.
const notifyTimeout = 5 * time.Second

// run shows the cards until Ctrl-C, a signal or the end of the terminal,
// and says which ended it.
func (ui *terminalUI) run() (why string) {
	fd := int(ui.in.Fd())
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return "the terminal could not be put in raw mode: " + err.Error()
	}
	ui.w = bufio.NewWriter(ui.out)
	restore := func() {
		if !ui.dumb {
			ui.w.WriteString(focusReportsOff + showCursor)
		}
		ui.w.WriteString("\r\n")
		ui.w.Flush()
		_ = term.Restore(fd, saved)
	}
	defer func() {
		if p := recover(); p != nil {
			restore()
			panic(p)
		}
		restore()
	}()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGWINCH)
	defer signal.Stop(signals)

	keys, readEnded, stopReading := ui.readKeys()
	defer stopReading()

	if !ui.dumb {
		ui.w.WriteString(focusReportsOn + hideCursor + clearScreen)
	}
	ui.measure()
	ui.draw(true)

	var dec console.Decoder
	var escWait <-chan time.Time
	tick := time.NewTimer(time.Hour)
	defer tick.Stop()
	for {
		ui.schedule(tick)
		relaid := false
		select {
		case b := <-keys:
			for _, k := range dec.Feed(b) {
				switch k.Kind {
				case console.KeyInterrupt:
					return "Ctrl-C"
				case console.KeyRedraw:
					relaid = true
				default:
					ui.cards.Key(k, time.Now())
				}
			}
			escWait = nil
			if dec.Pending() {
				escWait = time.After(console.EscWait)
			}
		case <-escWait:
			for _, k := range dec.Flush() {
				ui.cards.Key(k, time.Now())
			}
			escWait = nil
		case err := <-readEnded:
			return "the terminal closed: " + err.Error()
		case sig := <-signals:
			if sig != syscall.SIGWINCH {
				return sig.String()
			}
			ui.measure()
			relaid = true
		case <-ui.cards.Changed():
		case <-tick.C:
		}
		ui.draw(relaid)
	}
}

// readKeys reads the terminal in a goroutine that ends with stop: the
// terminal is opened again as /dev/tty, non-blocking, so that closing it
// ends a read in progress (stdin's descriptor is shared with the shell,
// whose mode must not change).
func (ui *terminalUI) readKeys() (keys <-chan []byte, ended <-chan error, stop func()) {
	out, errs := make(chan []byte), make(chan error, 1)
	src := ui.in
	tty, err := os.OpenFile("/dev/tty", os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		src = tty
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 256)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				select {
				case out <- append([]byte(nil), buf[:n]...):
				case <-done:
					return
				}
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	return out, errs, func() {
		close(done)
		if tty != nil {
			tty.Close()
			wg.Wait()
		}
		// Without /dev/tty the read of stdin cannot be interrupted: it
		// ends with the process, which is ending.
	}
}

// measure reads the terminal's size.
func (ui *terminalUI) measure() {
	cols, rows, err := term.GetSize(int(ui.out.Fd()))
	if err != nil || cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	ui.cols, ui.rows = cols, rows
}

// schedule sets tick for the next change no event announces: the guard
// running out, or the countdown's next second.
func (ui *terminalUI) schedule(tick *time.Timer) {
	now := time.Now()
	v := ui.cards.View(now)
	next := time.Hour
	if v.Card != nil && !ui.dumb {
		next = time.Second - time.Duration(now.Nanosecond())
		if !v.ArmsAt.IsZero() && v.ArmsAt.Sub(now) < next {
			next = max(v.ArmsAt.Sub(now), time.Millisecond)
		}
	}
	tick.Reset(next)
}

// draw shows the current state, tells the console what is on the screen
// (relaid: the layout changed, and a card on it must be read again), and
// alerts for cards that arrived unfocused.
func (ui *terminalUI) draw(relaid bool) {
	now := time.Now()
	v := ui.cards.View(now)
	screen := console.Render(v, ui.header, ui.cols, ui.rows, now)
	if v.Card != nil {
		ui.cards.SetScroll(v.Card, screen.Scroll)
	}
	switch {
	case ui.dumb:
		// Printed again only when the card or the notices change: the
		// guard's state and the countdown would print it on every key.
		if shape := fmt.Sprintf("%p %d %d %d", v.Card, len(v.Notices), v.Waiting, ui.cols); shape != ui.dumbShape {
			ui.dumbShape = shape
			ui.drawDumb(screen.Rows)
		}
	case !relaid && slices.Equal(screen.Rows, ui.drawn):
	default:
		ui.w.WriteString(cursorHome)
		for i, row := range screen.Rows {
			if i > 0 {
				ui.w.WriteString("\r\n")
			}
			ui.w.WriteString(row + clearLine)
		}
		ui.w.WriteString(clearBelow)
	}
	ui.drawn = screen.Rows
	if v.Alerts > ui.alerts {
		ui.alerts = v.Alerts
		ui.sendAlert(v)
	}
	ui.w.Flush()
	ui.cards.Drawn(now, relaid)
}

// drawDumb prints what changed, the card whole only when it is new: a
// dumb terminal cannot redraw, and its scrollback is the screen.
func (ui *terminalUI) drawDumb(rows []string) {
	if len(ui.drawn) > 0 {
		ui.w.WriteString("\r\n")
	}
	for _, row := range rows {
		ui.w.WriteString(row + "\r\n")
	}
}

// sendAlert tells a person away from the terminal that a card waits, as
// --alert says.
func (ui *terminalUI) sendAlert(v console.View) {
	if v.Card == nil {
		return
	}
	_, lookErr := exec.LookPath("notify-send")
	desktop := lookErr == nil && (os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "")
	plan := console.PlanAlert(ui.alert, v.Focus, desktop)
	text := alertText(v)
	if plan.NotifySend {
		ui.notifying.Add(1)
		go func() {
			defer ui.notifying.Done()
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			defer cancel()
			if out, err := exec.CommandContext(ctx, "notify-send", "--app-name=codewhale-ls", "Codewhale approval", text).CombinedOutput(); err != nil {
				ui.cards.Notice(fmt.Sprintf("notify-send failed (%v: %s); no desktop notification was shown", err, strings.TrimSpace(string(out))))
			}
		}()
		return
	}
	if plan.Escape {
		// OSC 777 (rxvt, foot, WezTerm, VTE) and OSC 9 (iTerm2, Windows
		// Terminal, kitty): a terminal ignores the one it does not know.
		ui.w.WriteString("\x1b]777;notify;Codewhale approval;" + text + "\a\x1b]9;Codewhale approval: " + text + "\a")
	}
	if plan.Bell {
		ui.w.WriteString(bell)
	}
}

// alertText is the card in one line, safe inside a terminal escape: no
// control character and no ';' (the escape's separator).
func alertText(v console.View) string {
	p := v.Card.Prompt
	s := "an approval waits: " + p.Summary
	if p.Agent != "" {
		s = p.Agent + " asks: " + p.Summary
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == ';' {
			return ' '
		}
		return r
	}, s)
	if rs := []rune(s); len(rs) > 120 {
		s = string(rs[:119]) + "…"
	}
	return s
}
