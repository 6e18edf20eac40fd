package approvals

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/filetest"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

func openTestLog(t *testing.T) (*DecisionLog, string) {
	t.Helper()
	path := DefaultDecisionLogPath(filepath.Join(t.TempDir(), ".codewhale"))
	l, err := OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

func logLines(t *testing.T, path string) []string {
	t.Helper()
	text := filetest.Read(t, path)
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Fatalf("the log does not end with a whole line: %q", text)
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// Contract §4, "Receipts": one JSON line per final decision, schema v1.
func TestDecisionLogRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 890123456, time.FixedZone("CET", 3600))
	tests := []struct {
		name     string
		agent    string
		decision gate.Decision
		wantLine string
	}{
		{
			"prompted allow", "",
			gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Reason: "approved <once> & logged",
				Rule: strPtr("tool=exec_shell command=cargo test"), CallID: strPtr("call_17"), Approval: &gate.Approval{Choice: "once", Source: "prompt"}},
			`{"v":1,"id":"ID","time":"2025-03-04T04:06:07.890123456Z","callId":"call_17","tool":"bash","decision":"allow","layer":8,"layerName":"approval","rule":"tool=exec_shell command=cargo test","reason":"approved <once> & logged","approval":{"choice":"once","source":"prompt"},"decider":{"kind":"person","summary":"you, in an editor: approved once","answer":"once"},"hardening":"on"}`,
		},
		{
			"no call id, rule or approval", "",
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerAdmission, LayerName: "admission", Reason: "line\nbreak"},
			`{"v":1,"id":"ID","time":"2025-03-04T04:06:07.890123456Z","callId":null,"tool":"bash","decision":"deny","layer":2,"layerName":"admission","rule":null,"reason":"line\nbreak","approval":null,"decider":{"kind":"layer","summary":"layer 2 (admission): line break"},"hardening":"on"}`,
		},
		{
			"made for another agent", "claude-code",
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Reason: "typed deny"},
			`{"v":1,"id":"ID","time":"2025-03-04T04:06:07.890123456Z","agent":"claude-code","callId":null,"tool":"bash","decision":"deny","layer":5,"layerName":"permissions","rule":null,"reason":"typed deny","approval":null,"decider":{"kind":"layer","summary":"layer 5 (permissions): typed deny"},"hardening":"on"}`,
		},
	}
	l, path := openTestLog(t)
	var want []Receipt
	for _, tt := range tests {
		e := entryFor(at, "bash", tt.agent, tt.decision)
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	lines := logLines(t, path)
	if len(lines) != len(tests) {
		t.Fatalf("%d lines, want %d", len(lines), len(tests))
	}
	for i, tt := range tests {
		if strings.Replace(lines[i], `"id":"`+want[i].ID+`"`, `"id":"ID"`, 1) != tt.wantLine {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, lines[i], tt.wantLine)
		}
		var got Receipt
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		if !got.Time.Equal(at) || got.Time.Location() != time.UTC {
			t.Errorf("%s: time %v, want %v in UTC", tt.name, got.Time, at)
		}
		got.Time, want[i].Time = time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s: read back %+v, want %+v", tt.name, got, want[i])
		}
	}
}

func TestDecisionLogModes(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	_, path := func() (*DecisionLog, string) {
		path := DefaultDecisionLogPath(home)
		l, err := OpenDecisionLog(path)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l, path
	}()
	if want := filepath.Join(home, "codewhale-ls", "decisions.jsonl"); path != want {
		t.Errorf("default path %s, want %s", path, want)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("log mode %v, want 0600", m)
	}
	if m := mode(t, filepath.Dir(path)); m != 0o700 {
		t.Errorf("log directory mode %v, want 0700", m)
	}
}

// Reopening appends; it never truncates earlier evidence.
func TestDecisionLogReopenAppends(t *testing.T) {
	l, path := openTestLog(t)
	entry := entryFor(time.Now(), "read", "", gate.Decision{Decision: gate.Allow, Layer: gate.LayerBaseline, LayerName: "baseline"})
	if err := l.Append(entry); err != nil {
		t.Fatal(err)
	}
	l.Close()
	again, err := OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Append(entry); err != nil {
		t.Fatal(err)
	}
	if n := len(logLines(t, path)); n != 2 {
		t.Errorf("%d lines after reopening, want 2", n)
	}
}

func TestDecisionLogConcurrentAppends(t *testing.T) {
	const writers, each = 16, 50
	l, path := openTestLog(t)
	// Long reasons make a torn write visible.
	reason := strings.Repeat("r", 8<<10)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("call_%d_%d", w, i)
				d := gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Reason: reason, CallID: &id}
				if err := l.Append(entryFor(time.Now(), "bash", "", d)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Receipt
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.CallID == nil || e.Reason != reason {
			t.Fatalf("torn line (%v): %.80s", err, sc.Text())
		}
		seen[*e.CallID] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct entries, want %d", len(seen), writers*each)
	}
}

// Misuse is an error, never a panic: the caller denies on it.
func TestDecisionLogErrors(t *testing.T) {
	var none *DecisionLog
	if err := none.Append(Receipt{}); err == nil {
		t.Error("a nil log accepted an entry")
	}
	l, _ := openTestLog(t)
	l.Close()
	if err := l.Append(Receipt{Tool: "bash"}); err == nil {
		t.Error("a closed log accepted an entry")
	}
	open, _ := openTestLog(t)
	if err := open.Append(Receipt{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Error("a time JSON cannot hold was written")
	}
	blocker := filepath.Join(t.TempDir(), "file")
	filetest.Write(t, blocker, "")
	if _, err := OpenDecisionLog(filepath.Join(blocker, "decisions.jsonl")); err == nil || !strings.Contains(err.Error(), blocker) {
		t.Errorf("opening under a file: %v", err)
	}
}

// Issue 26, "Secrets stay out": a decision of a command holding a GitHub
// token, in the command the person saw and in the reason quoting it,
// leaves no token in the log file, even where the cap cuts a long
// command through the token; the rest of the command is kept.
func TestLogMasksSecrets(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3", 12) // format-valid, not a real token
	command := `curl -H "Authorization: token ` + token + `" https://api.github.com/user`
	long := strings.Repeat("x", receiptFieldBytes/2-10) + " " + token + " " + strings.Repeat("y", receiptFieldBytes)
	_, path := openTestLog(t)
	r := OpenRecorder(path, RecorderOptions{Settings: DefaultSettings()})
	t.Cleanup(func() { r.Close(context.Background()) })
	for _, c := range []string{command, long} {
		d := gate.Decision{Decision: gate.Deny, Layer: 8, Reason: "You denied " + c,
			Approval: &gate.Approval{Choice: "deny", Source: "prompt"}}
		r.Final(gate.Request{Tool: "exec_shell", Input: map[string]any{"command": c}}, Caller{}, d)
	}
	lines := logLines(t, path)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	for _, line := range lines {
		if strings.Contains(line, "ghp_") || strings.Contains(line, token[4:]) {
			t.Errorf("the token survived in the log: %s", line)
		}
	}
	var e Receipt
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	want := `curl -H "Authorization: token ⟪secret: github token⟫" https://api.github.com/user`
	if len(e.Input) != 1 || e.Input[0].Text != want || e.Reason != "You denied "+want {
		t.Errorf("input %+v, reason %q; want the command kept with the token masked", e.Input, e.Reason)
	}
}

// entryFor is the receipt of d for a call of tool by agent, without input.
func entryFor(at time.Time, tool, agent string, d gate.Decision) Receipt {
	return ReceiptFor(at, gate.Request{Tool: tool}, Caller{Session: Session{Agent: agent}}, d, "", false)
}
