package receiptlog

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// followed collects what Follow hands over, for a test to wait on.
type followed struct {
	mu  sync.Mutex
	ids []string
}

func (f *followed) add(r approvals.Receipt) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids = append(f.ids, r.ID)
}

func (f *followed) snapshot() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.ids)
}

// waitFor waits until f holds n receipts, or fails after a while.
func (f *followed) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ids := f.snapshot(); len(ids) >= n {
			return ids
		}
		time.Sleep(5 * time.Millisecond)
	}
	ids := f.snapshot()
	t.Fatalf("followed %d receipts, want %d", len(ids), n)
	return ids
}

// following starts Follow on the log at path after Scan, and returns
// what it hands over and how to stop it (waiting for it to end).
func following(t *testing.T, path string, f Filter, scanned func(approvals.Receipt)) (*followed, func()) {
	t.Helper()
	reader, err := Log{Path: path, Poll: time.Millisecond, Skip: func(s Skipped) { t.Errorf("skipped %s", s) }}.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := reader.Scan(f, scanned); err != nil {
		t.Fatal(err)
	}
	got := &followed{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- reader.Follow(ctx, f, got.add) }()
	return got, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
		}
		reader.Close()
	}
}

func followReceipt(i int, decision gate.Verdict) approvals.Receipt {
	return approvals.Receipt{
		V: approvals.ReceiptVersion, ID: fixtureID(i), Time: fixtureNow.Add(time.Duration(i) * time.Second),
		Agent: "codex", Tool: "exec_shell", Decision: decision, Layer: gate.LayerPermissions, LayerName: "permissions",
		Input:  []approvals.ReceiptInput{{Field: "command", Text: "go test ./...", Bytes: 13}},
		Reason: "a reason long enough that a few lines fill the tiny log and rotate it, again and again",
	}
}

// Issue 26, "--follow as tail -f": a second writer appending through
// approvals.DecisionLog with a tiny rotation (the log renamed to .1, a
// new one started, as every writer does) is followed line by line: every
// receipt appended after the scan is handed over once, in order, and
// those the filter leaves out are not.
func TestFollowAcrossRotations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	rotation := approvals.Rotation{MaxBytes: 1 << 10, Generations: 3}
	writer, err := approvals.OpenRotatingDecisionLog(path, rotation)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	const before, after = 5, 200
	for i := range before {
		if err := writer.Append(followReceipt(i, gate.Deny)); err != nil {
			t.Fatal(err)
		}
	}
	var scanned []string
	got, stop := following(t, path, Filter{Decision: gate.Deny}, func(r approvals.Receipt) { scanned = append(scanned, r.ID) })
	defer stop()
	var want []string
	for i := before; i < before+after; i++ {
		decision := gate.Deny
		if i%4 == 0 {
			decision = gate.Allow // filtered out
		} else {
			want = append(want, fixtureID(i))
		}
		if err := writer.Append(followReceipt(i, decision)); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			// Two lines fill the log and three generations are kept:
			// let the follower catch up every other rotation (a real log
			// rotates after tens of thousands of decisions, not two).
			got.waitFor(t, len(want))
		}
	}
	if len(scanned) == 0 || len(scanned) > before {
		t.Errorf("the scan read %v", scanned)
	}
	if ids := got.waitFor(t, len(want)); !slices.Equal(ids, want) {
		t.Errorf("followed %d receipts, want %d in order\n got %v\nwant %v", len(ids), len(want), ids, want)
	}
	if _, err := os.Stat(path + ".3"); err != nil {
		t.Errorf("the log did not rotate as far as its last generation: %v", err)
	}
}

// A log that does not exist yet is waited for, and read from its start
// when it comes, its rotated generations first.
func TestFollowWaitsForTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "codewhale-ls", "decisions.jsonl")
	got, stop := following(t, path, Filter{}, func(r approvals.Receipt) { t.Errorf("scanned %s in no log", r.ID) })
	defer stop()
	writer, err := approvals.OpenRotatingDecisionLog(path, approvals.Rotation{MaxBytes: 1 << 10, Generations: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	var want []string
	for i := range 12 {
		want = append(want, fixtureID(i))
		if err := writer.Append(followReceipt(i, gate.Ask)); err != nil {
			t.Fatal(err)
		}
	}
	if ids := got.waitFor(t, len(want)); !slices.Equal(ids, want) {
		t.Errorf("followed %v, want %v", ids, want)
	}
}

// A log emptied under the follower (a person truncating it) is read on
// from its new end; nothing is read twice or lost.
func TestFollowAfterTheLogIsCutBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	writer, err := approvals.OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if err := writer.Append(followReceipt(0, gate.Allow)); err != nil {
		t.Fatal(err)
	}
	got, stop := following(t, path, Filter{}, func(approvals.Receipt) {})
	defer stop()
	if err := writer.Append(followReceipt(1, gate.Allow)); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, 1)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the follower sees the log cut back
	if err := writer.Append(followReceipt(2, gate.Allow)); err != nil {
		t.Fatal(err)
	}
	if ids := got.waitFor(t, 2); !slices.Equal(ids, []string{fixtureID(1), fixtureID(2)}) {
		t.Errorf("followed %v", ids)
	}
}

// `log --follow` shows the last few, then goes on: after Last, Follow
// starts at the newest file's last whole line, so a line being written
// while Last read is shown once, whole, when it is done.
func TestFollowAfterLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	writer, err := approvals.OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	for i := range 5 {
		if err := writer.Append(followReceipt(i, gate.Allow)); err != nil {
			t.Fatal(err)
		}
	}
	var line strings.Builder
	if err := WriteJSON(&line, followReceipt(5, gate.Deny)); err != nil {
		t.Fatal(err)
	}
	half := len(line.String()) / 2
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line.String()[:half]); err != nil {
		t.Fatal(err)
	}
	reader, err := Log{Path: path, Poll: time.Millisecond, Skip: func(s Skipped) { t.Errorf("skipped %s", s) }}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	last, more, err := reader.Last(Filter{}, 2)
	if err != nil || !more || len(last) != 2 || last[0].ID != fixtureID(3) || last[1].ID != fixtureID(4) {
		t.Fatalf("Last(2) = %v, %v, %v", last, more, err)
	}
	got := &followed{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- reader.Follow(ctx, Filter{}, got.add) }()
	time.Sleep(10 * time.Millisecond) // the follower looks at the half line
	if _, err := f.WriteString(line.String()[half:]); err != nil {
		t.Fatal(err)
	}
	if err := writer.Append(followReceipt(6, gate.Ask)); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, 2)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow: %v", err)
	}
	if ids := got.snapshot(); !slices.Equal(ids, []string{fixtureID(5), fixtureID(6)}) {
		t.Errorf("followed %v", ids)
	}
}
