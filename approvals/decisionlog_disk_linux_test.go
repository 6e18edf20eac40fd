package approvals

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// tinyDisk mounts a tmpfs of size bytes (with options) for the test,
// which needs root; otherwise the test is skipped.
func tinyDisk(t *testing.T, options string) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, options); err != nil {
		t.Skip("cannot mount a tmpfs here:", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Error(err)
		}
	})
	return dir
}

// On a full disk the write error is the reason of a deny, and the part of
// the line that fit is cut off, so the log still ends with a whole line.
func TestDecisionLogFullDisk(t *testing.T) {
	disk := tinyDisk(t, "size=64k")
	path := filepath.Join(disk, "decisions.jsonl")
	l, err := OpenRotatingDecisionLog(path, Rotation{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := &Recorder{log: l}
	for written := 0; ; written++ {
		d := r.Final(gate.Request{Tool: "bash"}, Caller{}, loadDecision(written))
		if d.Decision == gate.Allow {
			continue
		}
		if d.Decision != gate.Deny || !strings.Contains(d.Reason, "no space left on device") || !strings.Contains(d.Reason, path) {
			t.Fatalf("a full disk: %s %q", d.Decision, d.Reason)
		}
		if got := len(wholeLines(t, path)); got != written {
			t.Errorf("%d whole lines after the disk filled, want %d", got, written)
		}
		return
	}
}

// loadDecision is an allowed call with a long reason, so the disk fills
// part way through a line.
func loadDecision(i int) gate.Decision {
	e := loadEntry("w", i)
	return gate.Decision{Decision: gate.Allow, Layer: e.Layer, LayerName: e.LayerName, Reason: e.Reason, CallID: e.CallID}
}

// A directory the log cannot be written in (here a read-only file
// system, which binds root too) is a clear error at opening, whether the
// log's directory is there already or has to be made.
func TestDecisionLogUnwritableDirectory(t *testing.T) {
	disk := tinyDisk(t, "size=64k")
	existing := filepath.Join(disk, "codewhale-ls")
	if err := os.Mkdir(existing, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("", disk, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, "size=64k"); err != nil {
		t.Skip("cannot remount the tmpfs read-only:", err)
	}
	for path, want := range map[string]string{
		filepath.Join(existing, "decisions.jsonl"):      "cannot open the decision log",
		filepath.Join(disk, "other", "decisions.jsonl"): "cannot create the directory of the decision log",
	} {
		r := OpenRecorder(path, RecorderOptions{})
		err := r.Failure()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "read-only file system") {
			t.Errorf("opening %s on a read-only disk: %v", path, err)
		}
		if d := r.Final(gate.Request{Tool: "bash"}, Caller{}, gate.Decision{Decision: gate.Allow}); d.Decision != gate.Deny {
			t.Errorf("a decision ran without its log: %s", d.Decision)
		}
	}
}
