package watch_test

import (
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/watch"
	"go.uber.org/goleak"
)

// Set replaces the set: old targets stop reporting, new ones start.
func TestSetReplaces(t *testing.T) {
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old", "a.toml"), filepath.Join(dir, "new", "b.toml")
	write(t, old, "1")
	write(t, cur, "1")
	w, rec := start(t, quick, old)
	must(t, w.Set([]string{cur}))

	write(t, old, "2")
	write(t, cur, "2")
	if got := rec.waitFor(t, cur); !slices.Equal(got, []string{cur}) {
		t.Fatalf("report = %v, want [%s]", got, cur)
	}
	write(t, old, "3")
	rec.expectOnly(t, cur)
}

// Set records the current content: what was there before is not a change.
func TestSetRecordsCurrentState(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml")
	w, rec := start(t, quick, a)
	write(t, b, "already there")
	must(t, w.Set([]string{a, b}))
	rec.expectOnly(t, a)

	must(t, w.Set(nil))
	write(t, a, "unwatched")
	// Nothing is watched, so nothing can be probed: let time pass.
	rec.expectNone(t, 200*time.Millisecond)
}

// A change still being debounced survives a Set that keeps its target.
func TestSetKeepsPendingChange(t *testing.T) {
	target := filepath.Join(t.TempDir(), "a.toml")
	write(t, target, "1")
	w, rec := start(t, 300*time.Millisecond, target)
	write(t, target, "2")
	watch.EventuallyPending(t, w, target)
	must(t, w.Set([]string{target, filepath.Join(filepath.Dir(target), "b.toml")}))
	rec.waitFor(t, target)
}

func TestSetRejectsRelativePaths(t *testing.T) {
	target := filepath.Join(t.TempDir(), "a.toml")
	w, rec := start(t, quick, target)
	if err := w.Set([]string{target, "relative/b.toml"}); err == nil {
		t.Fatal("Set accepted a relative path")
	}
	// Nothing changed: the old set is still watched.
	write(t, target, "x")
	rec.waitFor(t, target)
}

func TestNewRejectsNilCallback(t *testing.T) {
	if w, err := watch.New(quick, nil); err == nil {
		w.Close()
		t.Fatal("New accepted a nil onChange")
	}
}

// Close with a change still being debounced: no callback before Close
// returns, and none afterwards, as no goroutine of the watcher is left
// that could make one (goleak.VerifyNone, which waits only for goroutines
// still ending, not for time to pass).
func TestCloseCancelsPendingReport(t *testing.T) {
	target := filepath.Join(t.TempDir(), "a.toml")
	rec := &recorder{}
	w, err := watch.New(500*time.Millisecond, rec.record)
	must(t, err)
	must(t, w.Set([]string{target}))
	write(t, target, "x")
	watch.EventuallyPending(t, w, target)
	must(t, w.Close())
	goleak.VerifyNone(t)
	if reports := rec.all(); len(reports) > 0 {
		t.Fatalf("reported while closing: %v", reports)
	}
}

func TestSetAfterClose(t *testing.T) {
	w, err := watch.New(quick, func([]string) {})
	must(t, err)
	must(t, w.Close())
	must(t, w.Close()) // a second Close is harmless
	if err := w.Set([]string{filepath.Join(t.TempDir(), "a")}); !errors.Is(err, watch.ErrClosed) {
		t.Fatalf("Set after Close = %v, want ErrClosed", err)
	}
}

// Set and Close from many goroutines: run with -race.
func TestConcurrentSetAndClose(t *testing.T) {
	dir := t.TempDir()
	w, err := watch.New(time.Millisecond, func([]string) {})
	must(t, err)
	var wg sync.WaitGroup
	var setOnce sync.Once
	aSetReturned := make(chan struct{})
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				p := filepath.Join(dir, string(rune('a'+i)), string(rune('a'+j)))
				if err := w.Set([]string{p}); err != nil && !errors.Is(err, watch.ErrClosed) {
					t.Error(err)
				}
				setOnce.Do(func() { close(aSetReturned) })
			}
		})
	}
	wg.Go(func() {
		<-aSetReturned // Close while the other Sets are still going on
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	must(t, w.Close())
}

// onChange may call Set (it runs outside the watcher's lock).
func TestCallbackMaySet(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	got := make(chan []string, 10)
	var w *watch.Watcher
	w, err := watch.New(quick, func(paths []string) {
		// Set before telling the test, which then writes b; the test may
		// already be closing w after its last report.
		if err := w.Set([]string{a, b}); err != nil && !errors.Is(err, watch.ErrClosed) {
			t.Error(err)
		}
		got <- paths
	})
	must(t, err)
	defer w.Close()
	must(t, w.Set([]string{a}))
	write(t, a, "1")
	select {
	case <-got:
	case <-time.After(deadline):
		t.Fatal("no report for a")
	}
	write(t, b, "1")
	select {
	case p := <-got:
		if !slices.Equal(p, []string{b}) {
			t.Fatalf("report = %v, want [%s]", p, b)
		}
	case <-time.After(deadline):
		t.Fatal("no report for b after the callback added it")
	}
}
