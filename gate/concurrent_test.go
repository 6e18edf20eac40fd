package gate

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestConcurrentDecisionsShareASnapshot: decisions on one snapshot, from
// many goroutines at once and from the first (which compiles the engine
// and its indexes), are the decisions of a snapshot no other goroutine
// touched. Under -race it also shows that nothing a decision reads
// (indexes, memoised dialects, the snapshot) is written after it is built.
func TestConcurrentDecisionsShareASnapshot(t *testing.T) {
	permissions := generatedPermissions(1000) + "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test target1\"\nworkspace = \"<ws>\"\naction = \"deny\"\n"
	for _, r := range release.Implemented {
		shared := load(t, files{git: true, permissions: permissions, release: r.Version}).noFatal(t)
		alone := shared.as(t, r.Version)
		var requests []Request
		for _, command := range []string{"cargo test --workspace", "cargo test target1", "git push origin main", "rm -rf target17",
			"ls; cargo build target3", "bash -c 'npm test target5'", "FOO=1 make", "git status -sb"} {
			requests = append(requests, shared.call("bash", map[string]any{"command": command}))
		}
		for _, path := range []string{"src/module1/file1.rs", "src/module3/file100.rs", ".env"} {
			requests = append(requests, shared.call("read_file", map[string]any{"path": path}), shared.call("write_file", map[string]any{"path": path, "content": "x"}))
		}
		render := func(d Decision) string { // the card too, which the JSON leaves out
			b, err := json.Marshal(struct {
				Decision
				Card *Prompt
			}{d, d.Prompt})
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		got := make([][]string, 8)
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() {
				for i := range 20 * len(requests) {
					got[g] = append(got[g], render(Decide(context.Background(), shared.snap, requests[(i+g)%len(requests)], Deps{})))
				}
			})
		}
		wg.Wait()
		for g := range got {
			for i, d := range got[g] {
				req := requests[(i+g)%len(requests)]
				if want := render(Decide(context.Background(), alone.snap, req, Deps{})); d != want {
					t.Fatalf("%s, %v, goroutine %d:\n got %s\nwant %s", r.Version, req.Input, g, d, want)
				}
			}
		}
	}
}
