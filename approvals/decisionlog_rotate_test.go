package approvals

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// The writer processes of TestDecisionLogManyProcessesThroughRotation:
// this test binary re-run with these variables set appends
// writerLinesEach lines to the log and exits.
const (
	writerLogEnv = "CODEWHALE_TEST_DECISION_LOG"
	writerIDEnv  = "CODEWHALE_TEST_DECISION_LOG_WRITER"
)

// loadRotation rotates often: a few lines fill a generation, and every
// generation is kept so that every line can be counted afterwards.
var loadRotation = Rotation{MaxBytes: 16 << 10, Generations: 400}

const writerLinesEach = 50

// loadEntry is line i of writer; its reason is long enough (with the
// rest, about 600 bytes) that a torn or interleaved write is visible.
func loadEntry(writer string, i int) Receipt {
	id := fmt.Sprintf("%s_%d", writer, i)
	d := gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Reason: loadReason, CallID: &id}
	return entryFor(time.Now(), "exec_shell", "codex", d)
}

var loadReason = strings.Repeat("why ", 100)

// TestDecisionLogWriterProcess is one writer process (an agent's hook);
// it does nothing in an ordinary run.
func TestDecisionLogWriterProcess(t *testing.T) {
	path, writer := os.Getenv(writerLogEnv), os.Getenv(writerIDEnv)
	if path == "" || writer == "" {
		t.Skip("run by TestDecisionLogManyProcessesThroughRotation")
	}
	l, err := OpenRotatingDecisionLog(path, loadRotation)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range writerLinesEach {
		if err := l.Append(loadEntry(writer, i)); err != nil {
			t.Fatal(err)
		}
	}
}

// 40 agents' hooks (processes) and an editor's long-lived server write
// one log through dozens of rotations: every line of every generation is
// whole JSON, and none is lost or written twice (issue 26).
func TestDecisionLogManyProcessesThroughRotation(t *testing.T) {
	const processes = 40
	path := filepath.Join(t.TempDir(), "codewhale-ls", "decisions.jsonl")
	editor, err := OpenRotatingDecisionLog(path, loadRotation)
	if err != nil {
		t.Fatal(err)
	}
	defer editor.Close()

	stop := make(chan struct{})
	var editorLines int
	var editorErr error
	var editorDone sync.WaitGroup
	editorDone.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if editorErr = editor.Append(loadEntry("editor", editorLines)); editorErr != nil {
				return
			}
			editorLines++
			time.Sleep(time.Millisecond)
		}
	})

	start := time.Now()
	var hooks sync.WaitGroup
	for p := range processes {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDecisionLogWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerLogEnv+"="+path, writerIDEnv+"=hook"+strconv.Itoa(p))
		hooks.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("writer process %d: %v\n%s", p, err, out)
			}
		})
	}
	hooks.Wait()
	close(stop)
	editorDone.Wait()
	if editorErr != nil {
		t.Fatalf("the editor's writer: %v", editorErr)
	}

	seen := map[string]int{}
	generations := 0
	files := []string{path}
	for g := 1; ; g++ {
		name := fmt.Sprintf("%s.%d", path, g)
		if _, err := os.Lstat(name); err != nil {
			break
		}
		files = append(files, name)
		generations = g
	}
	if generations >= loadRotation.Generations {
		t.Fatalf("%d generations: the oldest may have been deleted, so lines cannot be counted", generations)
	}
	for _, name := range files {
		fi, err := os.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", name, fi.Mode())
		}
		if fi.Size() > loadRotation.MaxBytes {
			t.Errorf("%s has %d bytes, past the rotation size %d", name, fi.Size(), loadRotation.MaxBytes)
		}
		for _, id := range wholeLines(t, name) {
			seen[id]++
		}
	}
	want := processes*writerLinesEach + editorLines
	for p := range processes {
		for i := range writerLinesEach {
			if id := fmt.Sprintf("hook%d_%d", p, i); seen[id] != 1 {
				t.Errorf("%s is in the log %d times, want once", id, seen[id])
			}
		}
	}
	for i := range editorLines {
		if id := fmt.Sprintf("editor_%d", i); seen[id] != 1 {
			t.Errorf("%s is in the log %d times, want once", id, seen[id])
		}
	}
	if len(seen) != want {
		t.Errorf("%d distinct lines, want %d", len(seen), want)
	}
	if generations < 10 {
		t.Errorf("only %d rotations: the test did not write through rotation", generations)
	}
	t.Logf("%d lines (%d from the editor's writer) in %d files after %d rotations, %v", want, editorLines, len(files), generations, time.Since(start).Round(time.Millisecond))
}

// wholeLines returns the callId of each line of the log file at name,
// failing on any line that is not a whole entry of loadEntry.
func wholeLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Receipt
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.CallID == nil || e.Reason != loadReason {
			t.Fatalf("torn line in %s (%v): %.80s", name, err, sc.Text())
		}
		ids = append(ids, *e.CallID)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// Generations move down one by one and the oldest is deleted.
func TestDecisionLogRotationKeepsGenerations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	line, err := encodeLine(loadEntry("w", 0))
	if err != nil {
		t.Fatal(err)
	}
	// Two lines fill a file, a third does not fit: the lines' lengths
	// differ by a few bytes (the time's nanoseconds drop trailing zeros).
	l, err := OpenRotatingDecisionLog(path, Rotation{MaxBytes: int64(2*len(line) + len(line)/2), Generations: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 9 {
		if err := l.Append(loadEntry("w", i)); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{path: "w_8", path + ".1": "w_6 w_7", path + ".2": "w_4 w_5"} {
		if got := strings.Join(wholeLines(t, name), " "); got != want {
			t.Errorf("%s holds %s, want %s", filepath.Base(name), got, want)
		}
	}
	if _, err := os.Lstat(path + ".3"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a third generation was kept: %v", err)
	}
}

// No generations: a full log is started again; no rotation: it grows.
func TestDecisionLogRotationLimits(t *testing.T) {
	line, err := encodeLine(loadEntry("w", 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rotation  Rotation
		wantLines int
	}{
		{Rotation{MaxBytes: int64(2 * len(line))}, 1},
		{Rotation{MaxBytes: 0, Generations: 3}, 5},
	} {
		path := filepath.Join(t.TempDir(), "decisions.jsonl")
		l, err := OpenRotatingDecisionLog(path, tc.rotation)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if err := l.Append(loadEntry("w", i)); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		if n := len(wholeLines(t, path)); n != tc.wantLines {
			t.Errorf("%+v: %d lines, want %d", tc.rotation, n, tc.wantLines)
		}
		if _, err := os.Lstat(path + ".1"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%+v: a generation was kept: %v", tc.rotation, err)
		}
	}
}

// An editor's server holding the log open while a hook rotates it away,
// and rotates again so that the file the editor holds is deleted, writes
// its next line into the log at the path, not into the deleted file.
func TestDecisionLogLongLivedWriterFollowsRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	line, err := encodeLine(loadEntry("w", 0))
	if err != nil {
		t.Fatal(err)
	}
	oneLineEach := Rotation{MaxBytes: int64(len(line)), Generations: 1}
	editor, err := OpenRotatingDecisionLog(path, oneLineEach)
	if err != nil {
		t.Fatal(err)
	}
	defer editor.Close()
	if err := editor.Append(loadEntry("editor", 0)); err != nil {
		t.Fatal(err)
	}
	hook, err := OpenRotatingDecisionLog(path, oneLineEach)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := hook.Append(loadEntry("hook", i)); err != nil {
			t.Fatal(err)
		}
	}
	hook.Close()
	if err := editor.Append(loadEntry("editor", 1)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{path: "editor_1", path + ".1": "hook_1"} {
		if got := strings.Join(wholeLines(t, name), " "); got != want {
			t.Errorf("%s holds %s, want %s", filepath.Base(name), got, want)
		}
	}
}
