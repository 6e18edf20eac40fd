package watch_test

import (
	"os"
	"path/filepath"
	"slices"
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
	seen    int // reports before this index were consumed by waitFor
}

func (r *recorder) record(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, slices.Clone(paths))
}

func (r *recorder) all() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reports)
}

// waitFor returns the first unconsumed report that contains path.
func (r *recorder) waitFor(t *testing.T, path string) []string {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		r.mu.Lock()
		for i := r.seen; i < len(r.reports); i++ {
			if slices.Contains(r.reports[i], path) {
				r.seen = i + 1
				report := r.reports[i]
				r.mu.Unlock()
				return report
			}
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no report containing %s within %v; reports: %v", path, deadline, r.all())
	return nil
}

// waitForAll waits until the unconsumed reports together name every path,
// and consumes them.
func (r *recorder) waitForAll(t *testing.T, paths ...string) {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		r.mu.Lock()
		missing := slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
			return slices.ContainsFunc(r.reports[r.seen:], func(report []string) bool {
				return slices.Contains(report, p)
			})
		})
		if len(missing) == 0 {
			r.seen = len(r.reports)
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no reports naming all of %v within %v; reports: %v", paths, deadline, r.all())
}

// expectNone waits for quiet and fails if any report arrived since the last
// one consumed.
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
