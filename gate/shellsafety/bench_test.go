package shellsafety

import "testing"

// benchCommands are the two commands the authorization benchmark decides:
// a routine workspace command and a publish.
var benchCommands = []struct{ name, command string }{
	{"cargo-test", "cargo test --workspace"},
	{"git-push", "git push origin main"},
}

func BenchmarkReadOnly(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(c.command).ReadOnly()
			}
		})
	}
}

func BenchmarkAnalyze(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(c.command).Analyze()
			}
		})
	}
}
