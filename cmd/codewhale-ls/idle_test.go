package main

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/editortest"
)

// BenchmarkIdleServer is what `codewhale-ls serve` costs once initialized
// while nobody types (docs/performance.md, "Idle server"): resident
// memory, wake-ups per second over 10 s, threads and goroutines, for a
// repository without policy files of its own (served for approvals
// only) and one with them (linted and watched). The built program runs,
// not this test binary, so the memory is the user's.
func BenchmarkIdleServer(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "codewhale-ls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name     string
		policies bool
	}{{"no-policy-files", false}, {"policy-files", true}} {
		b.Run(c.name, func(b *testing.B) {
			var cost editortest.IdleCost
			for range b.N {
				var err error
				if cost, err = editortest.IdleServer(bin, b.TempDir(), c.policies, 2*time.Second, 10*time.Second); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cost.RSSKiB), "rss_KiB")
			b.ReportMetric(cost.WakeupsPerSecond, "wakeups/s")
			b.ReportMetric(float64(cost.Goroutines), "goroutines")
			b.ReportMetric(float64(cost.Threads), "threads")
		})
	}
}
