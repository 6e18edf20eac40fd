package approvals

import (
	"path/filepath"
	"testing"
)

// BenchmarkDecisionLogAppend is what writing a receipt adds to a
// decision (issue 26): the lock beside the log, the check that the log is
// still the open file, the write; "rotating" rotates every 100 lines or
// so, keeping three generations, and "parallel" has the goroutines of
// one process contend for the lock. `go run ./bench` prints the first two.
func BenchmarkDecisionLogAppend(b *testing.B) {
	entry := loadEntry("bench", 0)
	line, err := encodeLine(entry)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name     string
		rotation Rotation
		parallel bool
	}{
		{"steady", DefaultRotation, false},
		{"rotating", Rotation{MaxBytes: int64(100 * len(line)), Generations: 3}, false},
		{"parallel", DefaultRotation, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l, err := OpenRotatingDecisionLog(filepath.Join(b.TempDir(), "decisions.jsonl"), bc.rotation)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			if bc.parallel {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := l.Append(entry); err != nil {
							b.Error(err)
							return
						}
					}
				})
				return
			}
			for b.Loop() {
				if err := l.Append(entry); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
