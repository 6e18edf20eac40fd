package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// appendTarget is what a receipt may add to a decision: the target of a
// whole decision over 10k rules (issue 16), so that writing the receipt
// never slows a decision noticeably (issue 26).
const appendTarget = 50 * time.Microsecond

// decisionLogAppend is one receipt appended to the decision log (the
// writers' lock, the check that the log is still the open file, one
// write), without rotation and rotating about every 100 lines, as
// BenchmarkDecisionLogAppend in approvals measures it.
func decisionLogAppend(root string) []row {
	id := "call_1"
	entry := approvals.EntryFor(time.Now(), "exec_shell", "codex", gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval",
		Reason: "Blocked by a rule of permissions.toml line 12: tool=exec_shell command=rm -rf", CallID: &id})
	var rows []row
	for _, c := range []struct {
		name     string
		rotation approvals.Rotation
	}{
		{"decision log append", approvals.DefaultRotation},
		{"decision log append, rotating about every 100 lines", approvals.Rotation{MaxBytes: 100 * 300, Generations: 3}},
	} {
		l, err := approvals.OpenRotatingDecisionLog(filepath.Join(root, "decision-log", c.name, "decisions.jsonl"), c.rotation)
		if err != nil {
			fail(err)
		}
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Append(entry); err != nil {
					fail(err)
				}
			}
		})
		l.Close()
		per := time.Duration(res.NsPerOp())
		rows = append(rows, row{c.name, fmt.Sprintf("%.1f µs, %d allocs", float64(per)/1e3, res.AllocsPerOp()), "≤ " + appendTarget.String(), yes(per <= appendTarget)})
	}
	return rows
}
