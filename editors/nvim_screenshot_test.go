//go:build unix

package editors_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNeovimScreenshots runs the plugin in a real Neovim inside a tmux
// pane of a fixed size and draws what the pane shows into the README's
// pictures: the diagnostics of a broken permissions.toml and an approval
// prompt. CODEWHALE_UPDATE_SCREENSHOTS=1 writes them to docs/images;
// otherwise they are drawn and checked, and the committed ones left alone.
func TestNeovimScreenshots(t *testing.T) {
	// The newest Neovim when its root is there, else Debian's.
	var nv neovim
	root := os.Getenv("CODEWHALE_NVIM_SID_ROOT")
	if root == "" {
		root = defaultSidRoot
	}
	if _, err := os.Stat(filepath.Join(root, "usr", "bin", "nvim")); err == nil && os.Geteuid() == 0 {
		nv = sidNeovim(t)
	} else {
		nv = hostNeovim(t)
	}
	w := newNvimWorld(t, nv)
	const cols, rows = 100, 30
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tm := startTmuxNeovim(t, ctx, w, "screenshot.lua", "screenshot", cols, rows)
	tmuxCmd := tm.cmd

	images := filepath.Join("..", "docs", "images")
	update := os.Getenv("CODEWHALE_UPDATE_SCREENSHOTS") == "1"
	for _, step := range []string{"diagnostics", "approval"} {
		ready := filepath.Join(w.dir, step+".ready")
		for {
			if _, err := os.Stat(ready); err == nil {
				break
			}
			if ctx.Err() != nil {
				screen, _ := tmuxCmd("capture-pane", "-p").Output()
				t.Fatalf("the editor never showed %s; the screen:\n%s\nresults: %s", step, screen, readResults(w))
			}
			time.Sleep(20 * time.Millisecond)
		}
		want := map[string][]string{
			"diagnostics": {"never evaluates the tool", "Diagnostics:", "permissions.toml"},
			"approval":    {"Codewhale approval", "ZWSP U+200B", "cargo publish", "type ", "ready: type a code", "left (until", "CW: 1 approval waiting"},
		}[step]
		// tmux may not have drawn all the editor wrote yet: capture until
		// the screen shows the step.
		var screen []byte
		for {
			var err error
			screen, err = tmuxCmd("capture-pane", "-e", "-p").Output()
			if err != nil {
				t.Fatalf("capture-pane: %v", err)
			}
			if missing := missingText(stripSGR(string(screen)), want); missing == "" {
				break
			} else if ctx.Err() != nil {
				t.Fatalf("%s: the screen lacks %q:\n%s", step, missing, stripSGR(string(screen)))
			}
			time.Sleep(50 * time.Millisecond)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, renderTerminal(string(screen), cols, rows)); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), step+".png")
		if update {
			out = filepath.Join(images, "nvim-"+step+".png")
		}
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", out, buf.Len())
		if err := os.WriteFile(filepath.Join(w.dir, step+".taken"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results := filepath.Join(w.dir, "results.json")
	for {
		if _, err := os.Stat(results); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the editor did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := readResults(w); strings.Contains(r, `"errors": [`) && !strings.Contains(r, `"errors": []`) {
		t.Errorf("screenshot.lua: %s", r)
	}
}

// missingText is the first of want that text lacks, or "".
func missingText(text string, want []string) string {
	for _, s := range want {
		if !strings.Contains(text, s) {
			return s
		}
	}
	return ""
}

func readResults(w *nvimWorld) string {
	b, _ := os.ReadFile(filepath.Join(w.dir, "results.json"))
	return string(b)
}

// stripSGR drops the colour sequences capture-pane -e adds.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
