package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/watch"
)

// deadline is generous: the tests wait for an expected report, they do not
// measure how fast it comes.
const deadline = 5 * time.Second

// quick is the debounce for tests that do not depend on coalescing.
const quick = 20 * time.Millisecond

// recorder collects reports; it never blocks the watcher's goroutine, so a
// test that stops reading cannot deadlock Close.
type recorder struct {
	mu      sync.Mutex
	reports [][]string
	seen    int           // reports before this index were consumed
	arrived chan struct{} // nil, or closed by the next report
	probes  int           // how often expectOnly changed its probe
}

func (r *recorder) record(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, slices.Clone(paths))
	if r.arrived != nil {
		close(r.arrived)
		r.arrived = nil
	}
}

func (r *recorder) all() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reports)
}

// await calls found, with r.mu held, now and after each report until it
// returns true; false when deadline passes first.
func (r *recorder) await(found func() bool) bool {
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	for {
		r.mu.Lock()
		if found() {
			r.mu.Unlock()
			return true
		}
		if r.arrived == nil {
			r.arrived = make(chan struct{})
		}
		arrived := r.arrived
		r.mu.Unlock()
		select {
		case <-arrived:
		case <-timeout.C:
			return false
		}
	}
}

// waitFor returns the first unconsumed report that contains path.
func (r *recorder) waitFor(t *testing.T, path string) []string {
	t.Helper()
	var report []string
	if !r.await(func() bool {
		for i := r.seen; i < len(r.reports); i++ {
			if slices.Contains(r.reports[i], path) {
				r.seen, report = i+1, r.reports[i]
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no report containing %s within %v; reports: %v", path, deadline, r.all())
	}
	return report
}

// waitForAll waits until the unconsumed reports together name every path,
// and consumes them.
func (r *recorder) waitForAll(t *testing.T, paths ...string) {
	t.Helper()
	if !r.await(func() bool {
		for _, p := range paths {
			if !slices.ContainsFunc(r.reports[r.seen:], func(report []string) bool { return slices.Contains(report, p) }) {
				return false
			}
		}
		r.seen = len(r.reports)
		return true
	}) {
		t.Fatalf("no reports naming all of %v within %v; reports: %v", paths, deadline, r.all())
	}
}

// expectOnly proves that nothing was reported since the last report
// consumed, without waiting for time to pass: it changes probe, a target
// of the watcher that nothing else writes, and waits for the next report,
// which must name probe alone. The watcher handles the events of its one
// inotify queue in order, and each flush reports every target then
// pending, so whatever an earlier change would have reported comes at the
// latest with the probe's report.
func (r *recorder) expectOnly(t *testing.T, probe string) {
	t.Helper()
	r.mu.Lock()
	r.probes++
	content := "probe " + strconv.Itoa(r.probes)
	r.mu.Unlock()
	write(t, probe, content)
	var report []string
	if !r.await(func() bool {
		if r.seen == len(r.reports) {
			return false
		}
		report = r.reports[r.seen]
		r.seen++
		return true
	}) {
		t.Fatalf("no report of the probe %s within %v", probe, deadline)
	}
	if !slices.Equal(report, []string{probe}) {
		t.Fatalf("unexpected report %v: only the probe %s changed since the last report expected", report, probe)
	}
}

// expectNone waits for quiet and fails if any report arrived since the
// last one consumed. Only for a watcher that has no target left to probe
// (expectOnly): there, no event exists that could end the wait sooner.
func (r *recorder) expectNone(t *testing.T, quiet time.Duration) {
	t.Helper()
	time.Sleep(quiet)
	r.mu.Lock()
	defer r.mu.Unlock()
	if extra := r.reports[r.seen:]; len(extra) > 0 {
		t.Fatalf("unexpected reports: %v", extra)
	}
}

func start(t *testing.T, debounce time.Duration, targets ...string) (*watch.Watcher, *recorder) {
	t.Helper()
	rec := &recorder{}
	w, err := watch.New(debounce, rec.record)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := w.Set(targets); err != nil {
		t.Fatal(err)
	}
	return w, rec
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
