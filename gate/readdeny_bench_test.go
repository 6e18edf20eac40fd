package gate

import (
	"context"
	"testing"
)

// A read through the nine layers at each release: from 0.10.0 layer 9
// also checks the read deny-list (with the path's symlinks resolved).
func BenchmarkDecideReadPerRelease(b *testing.B) {
	for _, v := range releases {
		b.Run(v, func(b *testing.B) {
			fx := load(b, files{git: true, permissions: generatedPermissions(1000), release: v}).noFatal(b)
			req := fx.call("read_file", map[string]any{"path": "src/module1/file1.rs"})
			ctx := context.Background()
			if d := Decide(ctx, fx.snap, req, Deps{}); len(d.Trace) != 9 {
				b.Fatalf("not a nine-layer decision: %s at %d, %d trace entries", d.Decision, d.Layer, len(d.Trace))
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = Decide(ctx, fx.snap, req, Deps{})
			}
		})
	}
}
