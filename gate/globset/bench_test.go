package globset

import "testing"

// BenchmarkMatch is one protected path tested against one write target,
// which repository law does per rule and target on every decision.
func BenchmarkMatch(b *testing.B) {
	g, err := Compile("crates/protocol/**")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !g.Match("crates/protocol/src/lib.rs") {
			b.Fatal("no match")
		}
	}
}
