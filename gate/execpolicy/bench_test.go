package execpolicy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// generatedRules is a realistic large permissions.toml: mostly shell rules
// over common tools (prefix and exact, some repo-scoped), file rules with
// paths, all three actions.
func generatedRules(n int) []Rule {
	rng := rand.New(rand.NewPCG(7, 11))
	heads := []string{"git status", "git push", "git log", "cargo test", "cargo build", "npm run", "npm test",
		"docker compose", "kubectl get", "make", "go test", "pytest", "rm -rf", "curl", "terraform plan"}
	fileTools := []string{"read_file", "write_file", "edit_file", "apply_patch", "list_dir"}
	rules := make([]Rule, n)
	for i := range rules {
		r := Rule{Action: Action(rng.IntN(3))}
		if rng.IntN(10) < 6 {
			r.Tool = "exec_shell"
			c := fmt.Sprintf("%s target%d", heads[rng.IntN(len(heads))], i)
			if rng.IntN(8) == 0 {
				c = heads[rng.IntN(len(heads))]
			}
			r.Command = &c
			r.CommandExact = rng.IntN(5) == 0
		} else {
			r.Tool = fileTools[rng.IntN(len(fileTools))]
			p := fmt.Sprintf("src/module%d/file%d.rs", i%97, i)
			r.Path = &p
		}
		if rng.IntN(10) < 3 {
			w := fmt.Sprintf("/home/dev/repo%d", rng.IntN(20))
			r.Workspace = &w
		}
		rules[i] = r
	}
	return rules
}

// benchmarkCheck measures one check against n generated rules at every
// implemented release.
func benchmarkCheck(b *testing.B, n int, command string) {
	for _, r := range release.Implemented {
		b.Run(r.Version, func(b *testing.B) {
			e := NewEngine([]Ruleset{CompileRules(generatedRules(n))}, WithRelease(r))
			in := Input{Command: command, Tool: DefaultTool, Cwd: "/home/dev/repo3", Mode: Mode{Kind: OnFailure}}
			_ = e.Check(in) // compiles the oldest release's engine, which a newer one compares with
			b.ReportAllocs()
			for b.Loop() {
				_ = e.Check(in)
			}
		})
	}
}

const (
	benchCommand        = "cargo test --workspace --all-features"
	benchChainedCommand = "git status && cargo test"
)

func BenchmarkCheck1000(b *testing.B)         { benchmarkCheck(b, 1000, benchCommand) }
func BenchmarkCheck10000(b *testing.B)        { benchmarkCheck(b, 10000, benchCommand) }
func BenchmarkCheckChained1000(b *testing.B)  { benchmarkCheck(b, 1000, benchChainedCommand) }
func BenchmarkCheckChained10000(b *testing.B) { benchmarkCheck(b, 10000, benchChainedCommand) }
