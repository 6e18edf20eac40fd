package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Twenty quick writes are one report. The debounce is longer than the burst
// can take even under -race, so the assertion is about coalescing, not speed.
func TestBurstIsOneReport(t *testing.T) {
	dir := t.TempDir()
	target, probe := filepath.Join(dir, "config.toml"), filepath.Join(dir, "probe.toml")
	write(t, target, "start")
	_, rec := start(t, 300*time.Millisecond, target, probe)
	for i := range 20 {
		write(t, target, "v"+strconv.Itoa(i))
	}
	if got := rec.waitFor(t, target); !slices.Equal(got, []string{target}) {
		t.Fatalf("report = %v, want [%s]", got, target)
	}
	rec.expectOnly(t, probe)
}

// Several targets changed within one quiet period come in one sorted report.
func TestReportIsSortedAndDeduplicated(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml"), filepath.Join(dir, "c.toml")
	_, rec := start(t, 300*time.Millisecond, c, a, b, a)
	for _, p := range []string{c, b, a, c, a} {
		write(t, p, p)
	}
	if got := rec.waitFor(t, a); !slices.Equal(got, []string{a, b, c}) {
		t.Fatalf("report = %v, want [%s %s %s]", got, a, b, c)
	}
}

// A CHMOD-only touch (A2/B-style CHMOD events) changes no content.
func TestChmodOnlyIsNotReported(t *testing.T) {
	dir := t.TempDir()
	target, probe := filepath.Join(dir, "config.toml"), filepath.Join(dir, "probe.toml")
	write(t, target, "a = 1\n")
	_, rec := start(t, quick, target, probe)
	must(t, os.Chmod(target, 0o600))
	must(t, os.Chtimes(target, time.Now(), time.Now()))
	rec.expectOnly(t, probe)

	// The watcher is alive: a real change after the touch is reported.
	write(t, target, "a = 2\n")
	rec.waitFor(t, target)
}

// Rewriting the same bytes, or deleting and re-creating them identically
// within one quiet period, is no change.
func TestSameContentIsNotReported(t *testing.T) {
	dir := t.TempDir()
	target, probe := filepath.Join(dir, "config.toml"), filepath.Join(dir, "probe.toml")
	write(t, target, "a = 1\n")
	_, rec := start(t, 300*time.Millisecond, target, probe)
	write(t, target, "a = 1\n")
	must(t, os.Remove(target))
	write(t, target, "a = 1\n")
	rec.expectOnly(t, probe)
}

// Files next to a target, and temporary files of a save, are never reported.
func TestOtherFilesAreNotReported(t *testing.T) {
	dir := t.TempDir()
	target, probe := filepath.Join(dir, "config.toml"), filepath.Join(dir, "probe.toml")
	_, rec := start(t, quick, target, probe)
	write(t, filepath.Join(dir, "other.toml"), "x")
	write(t, filepath.Join(dir, "config.toml.tmp"), "x")
	must(t, os.Mkdir(filepath.Join(dir, "config.toml.d"), 0o755))
	rec.expectOnly(t, probe)
}

// Whatever happens in the watched directories, a reported path is a target,
// spelled as Set cleaned it.
func TestReportedPathsAreTargets(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.toml"), filepath.Join(dir, "sub", "b.toml")
	write(t, a, "a")
	_, rec := start(t, quick, dir+"/./a.toml", dir+"/sub/../sub//b.toml")

	c := filepath.Join(dir, "c.toml")
	write(t, c, "c")
	write(t, b, "b")
	must(t, os.Rename(c, a))
	write(t, filepath.Join(dir, "sub", "x"), "x")
	must(t, os.RemoveAll(filepath.Join(dir, "sub")))
	write(t, b+"~", "b")
	must(t, os.Rename(b+"~", b))
	rec.waitForAll(t, a, b)
	// Whatever the steps above still had to report comes at the latest
	// with the report of a change made after them (see expectOnly); the
	// reports before may name b again, so this is not expectOnly.
	write(t, a, "after")
	rec.waitFor(t, a)

	targets := []string{a, b}
	for _, report := range rec.all() {
		for _, p := range report {
			if !slices.Contains(targets, p) {
				t.Errorf("reported %q, which is not one of %v", p, targets)
			}
		}
	}
}

// TestContinuousRewritesStillReport: a file rewritten faster than the
// debounce, without pause, is still reported while the writes go on.
func TestContinuousRewritesStillReport(t *testing.T) {
	target := filepath.Join(t.TempDir(), "permissions.toml")
	_, rec := start(t, 20*time.Millisecond, target)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.WriteFile(target, []byte(strconv.Itoa(i)), 0o600)
			// An editor's pace, not a wait: a write every 5 ms, four
			// times within the debounce, never a pause long enough.
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer func() { close(stop); <-done }()
	rec.waitFor(t, target)
}
