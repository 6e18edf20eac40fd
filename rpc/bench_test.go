package rpc

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// rulesFile is a permissions.toml of n workspace-scoped exec_shell rules.
// cmd/codewhale-ls's BenchmarkCheck5000Rules generates the same file.
func rulesFile(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[[rules]]\ntool = \"exec_shell\"\ncommand = \"tool%d run --fast\"\naction = %q\nworkspace = \"/work/repo%d\"\n\n", i, []string{"allow", "deny", "ask"}[i%3], i%7)
	}
	return b.String()
}

// BenchmarkDidChangeToPublish measures, over a pipe, the time from a
// didChange on a 5,000-rule permissions.toml to its publishDiagnostics.
// "no-debounce" sets a 1 ns debounce; "debounce" keeps the default 50 ms,
// which an edit arriving at an idle server does not wait for (each
// iteration's edit follows the previous publication).
func BenchmarkDidChangeToPublish(b *testing.B) {
	for _, c := range []struct {
		name     string
		debounce time.Duration
	}{{"no-debounce", time.Nanosecond}, {"debounce", DefaultDebounce}} {
		b.Run(c.name, func(b *testing.B) {
			w := newWorld(b)
			w.write(b, w.configPath(), w.hermeticKeys())
			s := newSession(b, w, Options{Debounce: c.debounce})
			s.initialize(editor)
			u := s.open(w.permissionsPath(), 1, rulesFile(5000))
			s.waitVersion(u, 1)
			b.ResetTimer()
			for i := range b.N {
				v := int32(i + 2)
				// Toggle a comment on the first line.
				if i%2 == 0 {
					s.change(u, v, partial(0, 0, 0, 0, "#"))
				} else {
					s.change(u, v, partial(0, 0, 0, 1, ""))
				}
				s.waitVersion(u, v)
			}
			b.StopTimer()
			s.shutdown()
		})
	}
}
