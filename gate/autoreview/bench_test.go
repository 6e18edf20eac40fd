package autoreview

import (
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// benchCommands are the two commands the authorization benchmark decides:
// a routine workspace command and a publish.
var benchCommands = []struct{ name, command string }{
	{"cargo-test", "cargo test --workspace"},
	{"git-push", "git push origin main"},
}

func BenchmarkClassifyShell(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name, func(b *testing.B) {
			input := map[string]any{"command": c.command}
			b.ReportAllocs()
			for b.Loop() {
				Classify(NewCall("bash", input))
			}
		})
	}
}

func BenchmarkDecideShell(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name, func(b *testing.B) {
			input := map[string]any{"command": c.command}
			b.ReportAllocs()
			for b.Loop() {
				Decide(Config{}, NewCall("bash", input), session.AutoReview, session.Interactive, false)
			}
		})
	}
}
