// Package benchdata makes the inputs the benchmarks and `go run ./bench`
// measure on, so that the numbers in docs/performance.md and the Go
// benchmarks are of the same shape of work.
package benchdata

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// Permissions is a realistic large permissions.toml of n rules: mostly
// shell rules over common tools (prefix and exact, some scoped to this or
// another repository), file rules with paths, all three actions. The same
// n always gives the same text.
func Permissions(n int) string {
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

// Pipelined runs n calls with inFlight of them at a time, as an editor's
// client keeps requests in flight, and returns calls per second and the
// 99th percentile latency; the first error ends it.
func Pipelined(n, inFlight int, call func() error) (perSecond float64, p99 time.Duration, err error) {
	latencies := make([]time.Duration, n)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	start := time.Now()
	for range inFlight {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				next++
				failed := err != nil
				mu.Unlock()
				if k >= n || failed {
					return
				}
				t0 := time.Now()
				if e := call(); e != nil {
					mu.Lock()
					err = e
					mu.Unlock()
					return
				}
				latencies[k] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return float64(n) / elapsed.Seconds(), latencies[min(n-1, n*99/100)], err
}
