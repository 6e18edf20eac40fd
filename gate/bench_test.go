package gate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// generatedPermissions is a realistic large permissions.toml: mostly shell
// rules over common tools (prefix and exact, some scoped to this or another
// repository), file rules with paths, all three actions.
func generatedPermissions(n int) string {
	rng := rand.New(rand.NewPCG(7, 11))
	heads := []string{"git status", "git push", "git log", "cargo test", "cargo build", "npm run", "npm test",
		"docker compose", "kubectl get", "make", "go test", "pytest", "rm -rf", "curl", "terraform plan"}
	fileTools := []string{"read_file", "write_file", "edit_file", "apply_patch", "list_dir"}
	actions := []string{"allow", "ask", "deny"}
	var b strings.Builder
	for i := range n {
		b.WriteString("[[rules]]\n")
		if rng.IntN(10) < 6 {
			c := fmt.Sprintf("%s target%d", heads[rng.IntN(len(heads))], i)
			if rng.IntN(8) == 0 {
				c = heads[rng.IntN(len(heads))] + " --flag" + fmt.Sprint(i%13)
			}
			fmt.Fprintf(&b, "tool = \"exec_shell\"\ncommand = %q\n", c)
			if rng.IntN(5) == 0 {
				b.WriteString("command_exact = true\n")
			}
		} else {
			fmt.Fprintf(&b, "tool = %q\npath = \"src/module%d/file%d.rs\"\n", fileTools[rng.IntN(len(fileTools))], i%97, i)
		}
		switch rng.IntN(10) {
		case 0, 1:
			fmt.Fprintf(&b, "workspace = \"/home/dev/repo%d\"\n", rng.IntN(20))
		case 2:
			b.WriteString("workspace = \"<ws>\"\n")
		}
		if a := rng.IntN(4); a < 3 {
			fmt.Fprintf(&b, "action = %q\n", actions[a])
		}
	}
	return b.String()
}

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
