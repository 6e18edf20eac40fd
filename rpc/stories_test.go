package rpc

import (
	"slices"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// TestWhatUsersSee: one edit, one debounce, the finding on the exact text.
func TestWhatUsersSee(t *testing.T) {
	const debounce = 50 * time.Millisecond
	for _, c := range []struct {
		name        string
		permissions string // opened in the editor
		user        string // config.toml after the hermetic keys, on disk
		overlay     string // project .codewhale/config.toml, opened when set
		want        diag
	}{
		{name: "misspelt key", permissions: "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n", want: diag{"CW002", "2:0-2:5"}},
		{name: "capitalised action", permissions: "[[rules]]\ntool = \"exec_shell\"\naction = \"Deny\"\n", want: diag{"CW003", "2:9-2:15"}},
		{name: "overlay that loosens", user: "approval_policy = \"never\"\n", overlay: "approval_policy = \"auto\"\n", want: diag{"CW100", "0:18-0:24"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(t, w.configPath(), w.hermeticKeys()+c.user)
			s := newSession(t, w, Options{Debounce: debounce})
			s.initialize(editor)
			path, text := w.permissionsPath(), c.permissions
			if c.overlay != "" {
				path, text = w.overlayPath(), c.overlay
			}
			start := time.Now()
			u := s.open(path, 1, text)
			p := s.waitVersion(u, 1)
			// The latency is BenchmarkDidChangeToPublish's to measure; a
			// timed assertion here would only be flaky.
			t.Logf("diagnostics after %v (debounce %v)", time.Since(start).Round(time.Millisecond), debounce)
			if !hasDiag(p.Diagnostics, c.want) {
				t.Errorf("want %v, got %v", c.want, summarize(p.Diagnostics))
			}
			s.shutdown()
		})
	}
}

// TestEditingConfigRechecksOverlay: the overlay's CW100 depends on the
// user config.toml, so editing that buffer re-checks the overlay on disk,
// and fixing it clears the overlay's diagnostics.
func TestEditingConfigRechecksOverlay(t *testing.T) {
	w := newWorld(t)
	user := w.hermeticKeys() + "approval_policy = \"auto\"\n"
	w.write(t, w.configPath(), user)
	w.write(t, w.overlayPath(), "approval_policy = \"auto\"\n")
	s := newSession(t, w, Options{})
	s.initialize(editor)
	cfg := s.open(w.configPath(), 1, user)
	s.waitVersion(cfg, 1)
	overlay := protocolURI(w.overlayPath())

	lines := uint32(3) // the approval_policy line of config.toml
	s.change(cfg, 2, partial(lines-1, 19, lines-1, 23, "never"))
	s.waitVersion(cfg, 2)
	p := s.waitFor(overlay, "CW100", func(p *protocol.PublishDiagnosticsParams) bool { return hasCode(p.Diagnostics, "CW100") })
	if _, versioned := p.Version.Get(); versioned {
		t.Errorf("a file that is not open is published with a version")
	}
	s.change(cfg, 3, partial(lines-1, 19, lines-1, 24, "auto"))
	s.waitFor(overlay, "cleared diagnostics", func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
	s.shutdown()
}

// TestDebounceCoalesces: a burst of edits is checked once it settles, for
// the last version. The open finds the server idle and is checked at once;
// the edits that arrive while that check runs wait for the burst to end,
// and the open's result, stale by then, is published only if it finished
// first.
func TestDebounceCoalesces(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{Debounce: 200 * time.Millisecond})
	s.initialize(editor)
	// Large enough that its check outlasts sending the burst.
	u := s.open(w.permissionsPath(), 1, rulesFile(2000))
	for v := int32(2); v <= 20; v++ {
		s.change(u, v, partial(0, 0, 0, 0, "#\n"))
	}
	s.waitVersion(u, 20)
	s.mu.Lock()
	got := slices.Clone(s.versions[u])
	s.mu.Unlock()
	if want := []int32{20}; !slices.Equal(got, want) && !slices.Equal(got, []int32{1, 20}) {
		t.Errorf("published versions %v for a burst of 20 versions, want %v (after an optional 1)", got, want)
	}
	s.shutdown()
}
