package gate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/benchdata"
)

// generatedPermissions is benchdata.Permissions: the same rules the bench
// command measures (docs/performance.md).
func generatedPermissions(n int) string { return benchdata.Permissions(n) }

// benchmarkDecide measures a nine-layer decision over n generated rules at
// every implemented release.
func benchmarkDecide(b *testing.B, n int) {
	for _, r := range release.Implemented {
		b.Run(r.Version, func(b *testing.B) {
			fx := load(b, files{git: true, permissions: generatedPermissions(n), release: r.Version}).noFatal(b)
			req := fx.call("bash", map[string]any{"command": "cargo test --workspace"})
			ctx := context.Background()
			d := Decide(ctx, fx.snap, req, Deps{})
			if len(d.Trace) != 9 {
				b.Fatalf("not a nine-layer decision: %s at %d, %d trace entries", d.Decision, d.Layer, len(d.Trace))
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = Decide(ctx, fx.snap, req, Deps{})
			}
		})
	}
}

func BenchmarkDecide1000(b *testing.B)  { benchmarkDecide(b, 1000) }
func BenchmarkDecide10000(b *testing.B) { benchmarkDecide(b, 10000) }

// BenchmarkDecideHardened is a compound shell line at 1k rules, decided
// exactly as Codewhale does and with the hardening layer, which parses it
// and judges each of its commands again (docs/hardening.md): the layer's
// cost per decision.
func BenchmarkDecideHardened(b *testing.B) {
	for _, r := range release.Implemented {
		fx := load(b, files{git: true, permissions: generatedPermissions(1000), release: r.Version}).noFatal(b)
		req := fx.call("bash", map[string]any{"command": "cargo test --workspace 2>&1 | tee test.log && echo done"})
		for _, mode := range []struct {
			name string
			deps Deps
		}{{"exact", Deps{Exact: true}}, {"hardened", Deps{}}} {
			b.Run(r.Version+"/"+mode.name, func(b *testing.B) {
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					_ = Decide(ctx, fx.snap, req, mode.deps)
				}
			})
		}
	}
}

// BenchmarkDecideHostile is each hostile shell line of
// benchdata.HostileCommands (issue 23: at most 50 ms a decision, whatever
// the text) at 1k rules, per release, exact and hardened; `go run ./bench`
// prints the worst of a few decisions of each beside its target.
func BenchmarkDecideHostile(b *testing.B) {
	fixtures := map[string]fixture{}
	for _, r := range release.Implemented {
		fixtures[r.Version] = load(b, files{git: true, permissions: generatedPermissions(1000), release: r.Version}).noFatal(b)
	}
	for _, h := range benchdata.HostileCommands() {
		for _, r := range release.Implemented {
			fx := fixtures[r.Version]
			req := fx.call("bash", map[string]any{"command": h.Command})
			for _, mode := range []struct {
				name string
				deps Deps
			}{{"exact", Deps{Exact: true}}, {"hardened", Deps{}}} {
				b.Run(h.Name+"/"+r.Version+"/"+mode.name, func(b *testing.B) {
					ctx := context.Background()
					b.SetBytes(int64(len(h.Command)))
					b.ReportAllocs()
					for b.Loop() {
						_ = Decide(ctx, fx.snap, req, mode.deps)
					}
				})
			}
		}
	}
}

// BenchmarkParseRequestHostile is the parse of codewhale/authorize calls
// whose command is each hostile line (benchdata.HostileCommands), JSON
// escapes and all: the request's share of a hostile decision over the
// server (issue 23).
func BenchmarkParseRequestHostile(b *testing.B) {
	for _, h := range benchdata.HostileCommands() {
		data, err := json.Marshal(map[string]any{"tool": "bash", "input": map[string]any{"command": h.Command}, "workspace": "/home/me/shop"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(h.Name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseRequest(data, Request{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
