package watch_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO or a 6 GB sparse file at a watched path neither blocks the
// watcher nor is read whole: Set returns, the other targets still report,
// and replacing either with a policy file is a change.
func TestHostileTargets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".codewhale", "constitution.json")
	huge := filepath.Join(dir, ".codewhale", "hooks.toml")
	plain := filepath.Join(dir, ".codewhale", "config.toml")
	write(t, plain, "a = 1\n")
	must(t, syscall.Mkfifo(fifo, 0o600))
	f, err := os.Create(huge)
	must(t, err)
	must(t, f.Truncate(6<<30))
	must(t, f.Close())

	_, rec := start(t, quick, fifo, huge, plain)
	write(t, plain, "a = 2\n")
	rec.waitFor(t, plain)
	// Touching them is no change: both stay unreadable.
	hostile := []string{fifo, huge}
	for _, p := range hostile {
		now := time.Now()
		must(t, os.Chtimes(p, now, now))
	}
	write(t, plain, "a = 3\n")
	if report := rec.waitFor(t, plain); len(report) != 1 {
		t.Errorf("report %v, want only %s", report, plain)
	}
	for _, p := range hostile {
		must(t, os.Remove(p))
		write(t, p, "{}\n")
		rec.waitFor(t, p)
	}
}
