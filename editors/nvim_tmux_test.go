//go:build unix

package editors_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// tmuxNeovim is a real Neovim in a tmux pane of a fixed size, running one
// of testdata/nvim's scripts, for tests that type into it as a person does
// (send-keys) and read what the pane shows (capture-pane).
type tmuxNeovim struct {
	t          *testing.T
	ctx        context.Context
	tmux       string
	socket     string
	dir        string
	cols, rows int
}

// startTmuxNeovim starts nv on script in a detached tmux session; the
// session and its server end with the test (t.Cleanup), or when ctx does.
func startTmuxNeovim(t *testing.T, ctx context.Context, w *nvimWorld, script, kind string, cols, rows int) *tmuxNeovim {
	t.Helper()
	return startTmuxEditor(t, ctx, w, kind, cols, rows, "--clean", "-c", "luafile "+w.guest(filepath.Join(w.dir, "scripts", script)))
}

// startTmuxEditor starts w's editor with args in a detached tmux
// session, its environment w.env(kind); as startTmuxNeovim.
func startTmuxEditor(t *testing.T, ctx context.Context, w *nvimWorld, kind string, cols, rows int, args ...string) *tmuxNeovim {
	t.Helper()
	return startTmuxPane(t, ctx, w.dir, cols, rows, w.env(kind), w.nv.chroot, append([]string{w.nv.path}, args...)...)
}

// startTmuxPane runs command in a detached tmux session of cols x rows
// whose tmux server keeps its state in dir: with only env (beside a
// terminal and a plain PATH) and, when chroot is set, inside that root.
// The tmux server is a daemon of the test: it ends with it, even when
// ctx has ended first; the editor and its servers end with its pane.
func startTmuxPane(t *testing.T, ctx context.Context, dir string, cols, rows int, env []string, chroot string, command ...string) *tmuxNeovim {
	t.Helper()
	tm := &tmuxNeovim{t: t, ctx: ctx, tmux: requireTool(t, "tmux", "apt-get install tmux, or .ci/setup-nvim.sh"),
		socket: filepath.Join(t.TempDir(), "tmux.sock"), dir: dir, cols: cols, rows: rows}
	pane := append([]string{"env", "-i", "TERM=tmux-256color", "COLORTERM=truecolor", "PATH=/usr/local/bin:/usr/bin:/bin"}, env...)
	if chroot != "" {
		pane = append(pane, requireTool(t, "chroot", "coreutils"), chroot)
	}
	pane = append(pane, command...)
	session := append([]string{"new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "--"}, pane...)
	if out, err := tm.cmd(session...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		kill := exec.Command(tm.tmux, "-S", tm.socket, "kill-server")
		kill.Env = tm.cmd().Env
		kill.Run()
	})
	return tm
}

func (tm *tmuxNeovim) cmd(args ...string) *exec.Cmd {
	c := exec.CommandContext(tm.ctx, tm.tmux, append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "HOME=" + tm.dir, "XDG_RUNTIME_DIR=" + tm.dir}
	c.WaitDelay = 5 * time.Second
	return c
}

// capture is the pane's text; with colours (capture-pane -e) when sgr.
func (tm *tmuxNeovim) capture(sgr bool) string {
	args := []string{"capture-pane", "-p"}
	if sgr {
		args = append(args, "-e")
	}
	out, err := tm.cmd(args...).Output()
	if err != nil {
		tm.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// waitScreen waits until the pane shows every one of want and returns
// the screen. It fails after a minute: the bound of a hang, far above
// any draw.
func (tm *tmuxNeovim) waitScreen(want ...string) string {
	tm.t.Helper()
	give := time.Now().Add(time.Minute)
	for {
		screen := tm.capture(false)
		missing := missingText(screen, want)
		if missing == "" {
			return screen
		}
		if time.Now().After(give) {
			tm.t.Fatalf("the screen never showed %q:\n%s", missing, screen)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// typing is the pause between two keys of a person typing fast: the
// keys arrive one by one, as from a keyboard, never as one paste.
const typing = 35 * time.Millisecond

// typeText types text key by key ('\n' is Enter, '\x1b' Escape).
func (tm *tmuxNeovim) typeText(text string) {
	tm.t.Helper()
	if err := tm.sendText(text); err != nil {
		tm.t.Fatal(err)
	}
}

// sendText is typeText for a goroutine beside the test (the person at a
// card while an agent runs): it returns its failure instead of ending
// the test.
func (tm *tmuxNeovim) sendText(text string) error {
	for _, r := range text {
		var args []string
		switch r {
		case '\n':
			args = []string{"send-keys", "Enter"}
		case '\x1b':
			args = []string{"send-keys", "Escape"}
		case ';':
			// A lone ";" separates tmux commands.
			args = []string{"send-keys", "-l", `\;`}
		default:
			args = []string{"send-keys", "-l", string(r)}
		}
		if out, err := tm.cmd(args...).CombinedOutput(); err != nil {
			return fmt.Errorf("send-keys %q: %v\n%s", r, err, out)
		}
		time.Sleep(typing)
	}
	return nil
}
