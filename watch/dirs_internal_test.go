package watch

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

func newTestWatcher(t *testing.T) *Watcher {
	t.Helper()
	w, err := New(20*time.Millisecond, func([]string) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// One watch per needed directory, none left over after Set shrinks the set.
func TestWatchesFollowSet(t *testing.T) {
	ws := t.TempDir()
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	w := newTestWatcher(t)

	steps := []struct {
		targets []string
		want    []string
	}{
		{[]string{ws + "/a", ws + "/b", sub + "/c"}, []string{ws, sub}},
		{[]string{ws + "/a"}, []string{ws}},
		{[]string{ws + "/missing/deeper/x", sub + "/c"}, []string{ws, sub}},
		{[]string{ws + "/a/b"}, []string{ws}}, // a missing parent is not a directory to watch
		{nil, nil},
	}
	for _, step := range steps {
		if err := w.Set(step.targets); err != nil {
			t.Fatal(err)
		}
		// Nothing is deleted here, so Set alone must leave both lists exact.
		slices.Sort(step.want)
		if ours, theirs := watchLists(w); !slices.Equal(ours, step.want) || !slices.Equal(theirs, step.want) {
			t.Fatalf("Set(%v): watcher believes %v, fsnotify watches %v, want %v", step.targets, ours, theirs, step.want)
		}
	}
}

// A path component that is a file, not a directory: watch the directory
// holding it, and climb down when it becomes a directory.
func TestWatchesSkipFileComponent(t *testing.T) {
	ws := t.TempDir()
	blocker := filepath.Join(ws, ".codewhale")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w := newTestWatcher(t)
	if err := w.Set([]string{blocker + "/permissions.toml"}); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, ws)
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, blocker)
}

// The watch climbs down as directories appear and back up as they go.
func TestWatchesClimb(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	cw := filepath.Join(ws, ".codewhale")
	w := newTestWatcher(t)
	if err := w.Set([]string{cw + "/permissions.toml"}); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, root)

	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, ws)
	if err := os.Mkdir(cw, 0o755); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, cw)
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, root)
	if err := os.MkdirAll(cw, 0o755); err != nil {
		t.Fatal(err)
	}
	EventuallyWatching(t, w, cw)
}

// An overflow (events lost) makes every target be re-read.
func TestResyncRechecksAll(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.toml")
	got := make(chan []string, 1)
	w, err := New(20*time.Millisecond, func(p []string) { got <- p })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Set([]string{target}); err != nil {
		t.Fatal(err)
	}
	// Change the recorded state behind the watcher's back, as if the event
	// had been lost, then signal what drainErrors signals on an overflow.
	w.mu.Lock()
	w.targets[target] = fileState{kind: stateContent}
	w.mu.Unlock()
	w.resync <- struct{}{}
	select {
	case p := <-got:
		if !slices.Equal(p, []string{target}) {
			t.Fatalf("report = %v, want [%s]", p, target)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no report after resync")
	}
}

// A directory whose stat hangs (a network or FUSE mount) does not hold the
// watcher's lock: before, reconcile stat'ed under w.mu, so every event,
// Set and flush waited for the disk.
func TestHungStatDoesNotHoldTheLock(t *testing.T) {
	w := newTestWatcher(t)
	hung := filepath.Join(t.TempDir(), "mount")
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	w.isDir = func(path string) bool {
		if path == hung {
			once.Do(func() { close(entered) })
			<-release
		}
		return isDir(path)
	}
	set := make(chan error, 1)
	go func() { set <- w.Set([]string{filepath.Join(hung, "config.toml")}) }()
	<-entered
	locked := w.mu.TryLock()
	if locked {
		w.mu.Unlock()
	}
	close(release)
	if err := <-set; err != nil {
		t.Fatal(err)
	}
	if !locked {
		t.Error("the watcher's lock is held while a directory is stat'ed")
	}
}
