package main

import (
	"fmt"
	"path/filepath"
	"strings"
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
	entry := benchReceipt(`curl -H "Authorization: token ghp_0123456789abcdefghijABCDEFGHIJ012345" https://api.github.com/user`)
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

// benchReceipt is the receipt of a rule's deny of the shell command
// command, as a hook writes it: input kept and masked.
func benchReceipt(command string) approvals.Receipt {
	id, rule := "call_1", "curl"
	req := gate.Request{Tool: "exec_shell", Input: map[string]any{"command": command}, Workspace: "/home/user/project"}
	d := gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule,
		Reason: "Blocked by a rule of permissions.toml line 12: tool=exec_shell command=curl", CallID: &id,
		Location: &gate.Location{File: "/home/user/.codewhale/permissions.toml", Line: 12}}
	return approvals.ReceiptFor(time.Now(), req, approvals.Caller{Session: approvals.Session{Agent: "codex", ID: "s-1"}}, d, "", true)
}

// receiptBuild is the cost of making a receipt (masking its texts and
// capping its input) for a command of a usual size and for a hostile
// 1 MiB one, whose two 64 KiB ends alone are masked.
func receiptBuild() []row {
	var rows []row
	for _, c := range []struct {
		name    string
		command string
		target  time.Duration
	}{
		{"receipt of a 100-byte command with a token", `curl -H "Authorization: token ghp_0123456789abcdefghijABCDEFGHIJ012345" https://api.github.com/user`, appendTarget},
		{"receipt of a 1 MiB command", strings.Repeat("echo password=hunter2 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; ", 1<<20/52), 2 * time.Millisecond},
	} {
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchReceipt(c.command)
			}
		})
		per := time.Duration(res.NsPerOp())
		rows = append(rows, row{c.name, fmt.Sprintf("%.1f µs, %d allocs", float64(per)/1e3, res.AllocsPerOp()), "≤ " + c.target.String(), yes(per <= c.target)})
	}
	return rows
}
