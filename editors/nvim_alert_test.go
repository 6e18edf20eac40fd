//go:build unix

package editors_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/nvimtest"
)

// TestNeovimDesktopAlert: alert = 'desktop', in both Neovims, with
// Neovim not focused. An approval runs notify-send with the call as text
// (never markup), and nothing else reaches the terminal; where
// notify-send fails, hangs (ended at its timeout) or is missing, the
// terminal's notification escape and the bell are sent instead.
func TestNeovimDesktopAlert(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		w := newNvimWorld(t, nv)
		nvimtest.Write(t, filepath.Join(w.dir, "fakebin", "notify-send"), []byte(
			"#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"$CWLS_DIR/notify-send.log\"\n"+
				"case $(cat \"$CWLS_DIR/notify-mode\") in fail) exit 1;; hang) exec sleep 60;; esac\n"), 0o755)
		var res struct {
			Cases map[string]struct {
				NotifySend []string `json:"notify_send"`
				Terminal   string
			}
		}
		w.run(t, "alert.lua", "alert", &res)
		escape := "\x1b]777;notify;Codewhale approval;"
		ok := res.Cases["ok"]
		if got := strings.Join(ok.NotifySend, "\n"); !strings.Contains(got, "Codewhale approval") || !strings.Contains(got, "cargo test &lt;b&gt;ok&lt;/b&gt;") {
			t.Errorf("notify-send got %q, want the title and the call as text", got)
		}
		if ok.Terminal != "" {
			t.Errorf("notify-send worked, yet the terminal got %q", ok.Terminal)
		}
		for _, mode := range []string{"fail", "hang", "missing"} {
			c := res.Cases[mode]
			if !strings.HasPrefix(c.Terminal, escape) || !strings.Contains(c.Terminal, "cargo test <b>"+mode) || !strings.HasSuffix(c.Terminal, "\a\a") {
				t.Errorf("notify-send %s: the terminal got %q, want the notification escape and the bell", mode, c.Terminal)
			}
			if (mode == "missing") != (len(c.NotifySend) == 0) {
				t.Errorf("notify-send %s: it ran with %q", mode, c.NotifySend)
			}
		}
	})
}
