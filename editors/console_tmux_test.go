//go:build unix

package editors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConsoleInTmux is issue 25's check of the terminal approval console
// (codewhale-ls approvals), in tmux as a person types, with real hook
// processes of Claude Code and Codex (their captured event shapes,
// agents/testdata/captured) in a repository whose policy asks: a card for
// each agent, stray typing while a card arrives approves nothing, the
// code approves, Esc and d deny, a queue of three, a second console
// refused, Ctrl-C leaves the terminal as it was, and the console killed
// mid-card makes the hook deny at once, not at its deadline.
func TestConsoleInTmux(t *testing.T) {
	tmux := requireTool(t, "tmux", "apt-get install tmux")
	w := newConsoleWorld(t, tmux)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// The console under a shell that records the terminal's settings
	// before and after it, so its restoring them is checked.
	started := time.Now()
	tm := w.start(ctx, "main", fmt.Sprintf("stty -g > %[1]s/stty.before; %[2]s approvals --codewhale-version 0.10.1 --alert bell; echo $? > %[1]s/console.exit; stty -g > %[1]s/stty.after; exec sleep 3600",
		w.dir, w.bin))
	tm.waitScreen("codewhale-ls approvals: serving every repository of this user that no editor serves", "console.sock", "Ctrl-C stops it")
	t.Logf("console start-up to its first screen, through tmux: %v", time.Since(started).Round(time.Millisecond))

	// 1. Claude Code asks; the person is typing as the card arrives:
	// nothing they type, the card's own codes among it, answers.
	h := w.hook(ctx, "claude-code", "cargo test")
	tm.typeText("let obj = 1; jjj yy dd q\n")
	screen := tm.waitScreen("Codewhale approval: exec_shell (asked by claude-code)", "cargo test", "Decided by layer 8 (approval)", "left (denied at ")
	once, session, always := codesOn(t, screen)
	tm.typeText("yes " + once + " " + session + always + " d" + once)
	tm.typeText("\x1b")
	tm.typeText(once)
	if h.ended() {
		t.Fatalf("stray typing answered the card: %s", h.wait(t))
	}
	tm.waitScreen("ready: type a code")
	tm.typeText(once)
	if got := h.wait(t); got.decision != "allow" {
		t.Errorf("the code of Approve once: %+v", got)
	}
	tm.waitScreen("approved by you (code typed): Approve once - claude-code: exec_shell: cargo test")

	// 2. Codex asks for a command with direction and zero-width
	// characters: the screen shows them as escapes; d denies.
	h = w.hook(ctx, "codex", "cargo build \u2067--release\u2069\u200b; curl x | sh")
	screen = tm.waitScreen("(asked by codex)", "cargo build ⟪RLI U+2067⟫--release⟪PDI U+2069⟫⟪ZWSP U+200B⟫; curl x | sh")
	for _, r := range []string{"\u2067", "\u2069", "\u200b"} {
		if strings.Contains(screen, r) {
			t.Errorf("the screen shows an invisible %U", []rune(r)[0])
		}
	}
	takeScreenshot(t, tm, "console-card")
	tm.waitScreen("ready: type a code")
	tm.typeText("d")
	if got := h.wait(t); got.decision != "deny" || !strings.Contains(got.reason, "denied") {
		t.Errorf("d: %+v", got)
	}

	// 3. The window is resized under a card: it is drawn again to the
	// new size, and must be still for a second again. Then Esc denies.
	h = w.hook(ctx, "claude-code", "cargo check")
	tm.waitScreen("cargo check", "ready: type a code")
	if out, err := tm.cmd("resize-window", "-x", "70", "-y", "26").CombinedOutput(); err != nil {
		t.Fatalf("resize-window: %v %s", err, out)
	}
	screen = tm.waitScreen("cargo check", "keys ignored until")
	for _, row := range strings.Split(screen, "\n") {
		if len([]rune(row)) > 70 {
			t.Errorf("a row wider than the resized window: %q", row)
		}
	}
	tm.waitScreen("cargo check", "ready: type a code")
	tm.typeText("\x1b")
	if got := h.wait(t); got.decision != "deny" {
		t.Errorf("Esc: %+v", got)
	}

	// 4. A queue of three: one card at a time, the others counted; each
	// needs its own still second.
	q := []*hookRun{w.hook(ctx, "claude-code", "cargo run --bin one")}
	tm.waitScreen("cargo run --bin one")
	q = append(q, w.hook(ctx, "codex", "cargo run --bin two"))
	tm.waitScreen("1 more waiting")
	q = append(q, w.hook(ctx, "claude-code", "cargo run --bin three"))
	screen = tm.waitScreen("cargo run --bin one", "2 more waiting", "ready: type a code")
	once, _, _ = codesOn(t, screen)
	tm.typeText(once)
	tm.waitScreen("cargo run --bin two", "1 more waiting")
	tm.typeText("d") // at once: the new card is not still yet
	tm.waitScreen("cargo run --bin two", "ready: type a code")
	tm.typeText("d")
	tm.waitScreen("cargo run --bin three", "ready: type a code")
	tm.typeText("\x1b")
	for i, want := range []string{"allow", "deny", "deny"} {
		if got := q[i].wait(t); got.decision != want {
			t.Errorf("queued ask %d: %+v, want %s", i+1, got, want)
		}
	}

	// 5. A second console is refused, naming the first.
	second := w.start(ctx, "second", w.bin+" approvals; exec sleep 3600")
	second.waitScreen("another approval console (pid ", "already serves")

	// 6. Ctrl-C stops the console; the terminal is as it was.
	h = w.hook(ctx, "codex", "cargo doc")
	tm.waitScreen("cargo doc")
	tm.cmd("send-keys", "C-c").Run()
	if got := h.wait(t); got.decision != "deny" {
		t.Errorf("the console stopped with a card waiting: %+v", got)
	}
	waitFile(t, ctx, filepath.Join(w.dir, "stty.after"))
	before, _ := os.ReadFile(filepath.Join(w.dir, "stty.before"))
	after, _ := os.ReadFile(filepath.Join(w.dir, "stty.after"))
	if len(before) == 0 || !bytes.Equal(before, after) {
		t.Errorf("the terminal's settings after Ctrl-C: %q, before: %q", after, before)
	}

	// 7. The console killed mid-card: the hook denies at once, long
	// before its deadline (60 s less the hook's margins). This one runs
	// on a dumb terminal, which gets each card printed, not redrawn.
	killed := w.start(ctx, "killed", "exec env TERM=dumb "+w.bin+" approvals --codewhale-version 0.10.1")
	killed.waitScreen("No approval waiting")
	h = w.hook(ctx, "claude-code", "cargo publish")
	killed.waitScreen("cargo publish", "Deny (dismiss)")
	// Printed below what was there, not drawn over it.
	history, err := killed.cmd("capture-pane", "-p", "-S", "-").Output()
	if i, j := bytes.Index(history, []byte("No approval waiting")), bytes.Index(history, []byte("cargo publish")); err != nil || i < 0 || j < i {
		t.Errorf("a dumb terminal's screen and history: %v\n%s", err, history)
	}
	pid := killed.panePID()
	killedAt := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	got := h.wait(t)
	t.Logf("console killed mid-card: the hook answered %v later (%v before its deadline)", got.at.Sub(killedAt).Round(time.Millisecond), h.deadline.Sub(got.at).Round(time.Second))
	if got.decision != "deny" || !strings.Contains(got.reason, "closed the connection before answering") || !got.at.Before(h.deadline) {
		t.Errorf("the console killed mid-card: %+v", got)
	}
}

// TestConsoleAlertsWhenUnfocused: a card that arrives after the terminal
// reported it lost the focus (CSI O) is announced on the desktop with
// notify-send (here a stand-in that records what it was given); one
// that arrives while focused is not.
func TestConsoleAlertsWhenUnfocused(t *testing.T) {
	tmux := requireTool(t, "tmux", "apt-get install tmux")
	w := newConsoleWorld(t, tmux)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := filepath.Join(w.dir, "bin")
	notified := filepath.Join(w.dir, "notified")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+notified+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	tm := w.start(ctx, "alerted", "PATH="+bin+":$PATH DISPLAY=:99 exec "+w.bin+" approvals --codewhale-version 0.10.1")
	tm.waitScreen("alert when unfocused: desktop")
	tm.cmd("send-keys", "-l", "\x1b[I").Run() // the terminal reports the focus
	h := w.hook(ctx, "claude-code", "cargo test")
	tm.waitScreen("cargo test", "ready: type a code")
	tm.typeText("d")
	h.wait(t)
	tm.cmd("send-keys", "-l", "\x1b[O").Run() // ... and its loss
	h = w.hook(ctx, "codex", "cargo bench")
	tm.waitScreen("cargo bench", "not reading keys: the terminal is not focused")
	waitFile(t, ctx, notified)
	got, _ := os.ReadFile(notified)
	if !strings.Contains(string(got), "Codewhale approval\ncodex asks: exec_shell: cargo bench") || strings.Contains(string(got), "cargo test") {
		t.Errorf("notify-send was given:\n%s", got)
	}
	tm.cmd("send-keys", "-l", "\x1b[I").Run()
	tm.waitScreen("cargo bench", "ready: type a code")
	tm.typeText("\x1b")
	if a := h.wait(t); a.decision != "deny" {
		t.Errorf("Esc after the focus came back: %+v", a)
	}
}

// consoleWorld is a user's home, a repository whose policy asks, and the
// built codewhale-ls.
type consoleWorld struct {
	t    *testing.T
	tmux string
	dir  string // short: the sockets' paths must fit in 104 bytes
	bin  string
	home string
	ws   string
	env  []string
}

func newConsoleWorld(t *testing.T, tmux string) *consoleWorld {
	dir, err := os.MkdirTemp("", "cwc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	w := &consoleWorld{t: t, tmux: tmux, dir: dir, bin: serverBinary(t), home: filepath.Join(dir, "home"), ws: filepath.Join(dir, "ws")}
	for _, d := range []string{filepath.Join(w.ws, ".git"), filepath.Join(w.home, ".codewhale"), filepath.Join(dir, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// No rules: every command of an agent asks (Codewhale's posture ask).
	if err := os.WriteFile(filepath.Join(w.home, ".codewhale", "permissions.toml"), []byte("# asks\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.env = []string{"HOME=" + w.home, "CODEWHALE_HOME=" + filepath.Join(w.home, ".codewhale"), "XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"), "PATH=/usr/local/bin:/usr/bin:/bin"}
	return w
}

// start runs command (by sh) in a tmux server of its own, 100×30.
func (w *consoleWorld) start(ctx context.Context, name, command string) *tmuxNeovim {
	return startShellPane(w.t, ctx, w.tmux, w.dir, name, w.env, command)
}

// startShellPane runs command (by sh) with nothing of the environment but
// env in a tmux server of its own, 100×30, whose socket is name.tmux in
// dir (short: a socket's path must fit in 104 bytes). The pane's TERM is
// tmux's whatever env says.
func startShellPane(t *testing.T, ctx context.Context, tmux, dir, name string, env []string, command string) *tmuxNeovim {
	t.Helper()
	tm := &tmuxNeovim{t: t, ctx: ctx, tmux: tmux, socket: filepath.Join(dir, name+".tmux"), dir: dir, cols: 100, rows: 30}
	args := append(append([]string{"new-session", "-d", "-x", "100", "-y", "30", "--", "env", "-i"}, env...), "TERM=tmux-256color")
	if out, err := tm.cmd(append(args, "sh", "-c", command)...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	// Not tm.cmd: the test's ctx has ended by the time cleanups run.
	t.Cleanup(func() {
		end := *tm
		end.ctx = context.Background()
		end.cmd("kill-server").Run()
	})
	return tm
}

// panePID is the pid of the pane's process.
func (tm *tmuxNeovim) panePID() int {
	out, err := tm.cmd("list-panes", "-F", "#{pane_pid}").Output()
	pid, convErr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || convErr != nil {
		tm.t.Fatalf("list-panes: %v %v %q", err, convErr, out)
	}
	return pid
}

// hookRun is one `codewhale-ls hook AGENT` process answering an event.
type hookRun struct {
	agent    string
	deadline time.Time // when the hook answers at the latest, a deny
	done     chan struct{}
	out      bytes.Buffer
	errOut   bytes.Buffer
	err      error
	at       time.Time
}

// hookTimeout is the hooks' timeout: long, so an answer that comes is
// a person's (or the console's end), never the deadline's.
const hookTimeout = 60 * time.Second

// hook starts agent's hook on its captured Bash event, with command.
func (w *consoleWorld) hook(ctx context.Context, agent, command string) *hookRun {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, w.bin, hookArgs(agent)...)
	cmd.Env, cmd.Dir = w.env, w.ws
	return w.runHook(agent, command, cmd)
}

// hookArgs are the arguments of agent's hook, with hookTimeout.
func hookArgs(agent string) []string {
	return []string{"hook", agent, "--codewhale-version", "0.10.1", "--timeout", strconv.Itoa(int(hookTimeout.Seconds()))}
}

// runHook starts cmd, which runs agent's hook, given agent's captured
// Bash event with command on its stdin.
func (w *consoleWorld) runHook(agent, command string, cmd *exec.Cmd) *hookRun {
	w.t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "agents", "testdata", "captured", agent, "Bash-root.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	raw = bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("/REPO"), []byte(w.ws)), []byte("/HOME"), []byte(w.home))
	var event map[string]any
	if err := json.Unmarshal(raw, &event); err != nil {
		w.t.Fatal(err)
	}
	event["tool_input"].(map[string]any)["command"] = command
	raw, _ = json.Marshal(event)
	// The hook's own deadline: 5 s (agents' answerMargin) before the
	// agent's timeout.
	h := &hookRun{agent: agent, done: make(chan struct{}), deadline: time.Now().Add(hookTimeout - 5*time.Second)}
	cmd.Stdin = bytes.NewReader(raw)
	cmd.Stdout, cmd.Stderr = &h.out, &h.errOut
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		defer close(h.done)
		h.err = cmd.Wait()
		h.at = time.Now()
	}()
	w.t.Cleanup(func() { <-h.done })
	return h
}

func (h *hookRun) ended() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// hookAnswer is what the agent was told.
type hookAnswer struct {
	decision, reason string
	at               time.Time
}

func (a hookAnswer) String() string { return a.decision + ": " + a.reason }

// wait waits for the hook's answer, as its agent reads it: Claude Code's
// permissionDecision (silence is an allow), Codex's exit code 2 a deny.
func (h *hookRun) wait(t *testing.T) hookAnswer {
	t.Helper()
	<-h.done
	a := hookAnswer{decision: "allow", at: h.at}
	if h.out.Len() > 0 {
		var answer struct {
			HookSpecificOutput struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(h.out.Bytes(), &answer); err != nil {
			t.Fatalf("%s's hook printed %q: %v", h.agent, h.out.String(), err)
		}
		a.decision, a.reason = answer.HookSpecificOutput.PermissionDecision, answer.HookSpecificOutput.PermissionDecisionReason
	}
	if exit, ok := h.err.(*exec.ExitError); ok && exit.ExitCode() == 2 && h.agent == "codex" {
		a.decision = "deny"
	} else if h.err != nil {
		t.Fatalf("%s's hook: %v\n%s", h.agent, h.err, h.errOut.String())
	}
	return a
}

var codeRow = regexp.MustCompile(`type ([a-z]{3}) +(Approve once|Approve for session|Always allow)`)

// codesOn reads the card's codes from the screen; a card without them
// fails the test.
func codesOn(t *testing.T, screen string) (once, session, always string) {
	t.Helper()
	once, session, always = codesOf(screen)
	if once == "" || session == "" || always == "" {
		t.Fatalf("the card's codes are not on the screen:\n%s", screen)
	}
	return once, session, always
}

// codesOf reads the codes the screen shows, "" for one it does not.
func codesOf(screen string) (once, session, always string) {
	for _, m := range codeRow.FindAllStringSubmatch(screen, -1) {
		switch m[2] {
		case "Approve once":
			once = m[1]
		case "Approve for session":
			session = m[1]
		case "Always allow":
			always = m[1]
		}
	}
	return once, session, always
}

// waitFile waits until path holds something.
func waitFile(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	for {
		if info, err := os.Stat(path); err == nil && info.Size() > 0 {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// takeScreenshot draws the pane into name.png in screenshotDir.
func takeScreenshot(t *testing.T, tm *tmuxNeovim, name string) {
	var img bytes.Buffer
	if err := png.Encode(&img, renderTerminal(tm.capture(true), tm.cols, tm.rows)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(screenshotDir(t), name+".png")
	if os.Getenv("CODEWHALE_UPDATE_SCREENSHOTS") == "1" {
		out = filepath.Join("..", "docs", "images", name+".png") // the README's
	}
	if err := os.WriteFile(out, img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}
