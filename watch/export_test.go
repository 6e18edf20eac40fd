package watch

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// The waits below poll, with a deadline, because no event exists to wait
// on: the watcher tells no one when it has handled an fsnotify event (it
// marks targets pending and moves its directory watches in silence), only,
// a debounce later, which targets changed. The black-box tests
// (package watch_test) use them where a step must come after the watcher
// has handled the one before.

// pollDeadline is generous: the waits are for something that must happen,
// they do not measure how fast it comes.
const pollDeadline = 5 * time.Second

// eventually polls holds until it is true, and fails with failure() once
// pollDeadline has passed.
func eventually(t *testing.T, holds func() bool, failure func() string) {
	t.Helper()
	end := time.Now().Add(pollDeadline)
	for !holds() {
		if time.Now().After(end) {
			t.Fatal(failure())
		}
		time.Sleep(time.Millisecond)
	}
}

// watchLists returns the directories the watcher believes it watches and
// those fsnotify actually watches, both sorted.
func watchLists(w *Watcher) (ours, theirs []string) {
	w.dirsMu.Lock()
	defer w.dirsMu.Unlock()
	for dir := range w.watched {
		ours = append(ours, dir)
	}
	theirs = w.fsw.WatchList()
	slices.Sort(ours)
	slices.Sort(theirs)
	return ours, theirs
}

// EventuallyWatching waits for both lists to become want: they differ for
// a moment when fsnotify drops the watch of a deleted directory before the
// watcher has handled the event.
func EventuallyWatching(t *testing.T, w *Watcher, want ...string) {
	t.Helper()
	slices.Sort(want)
	var ours, theirs []string
	eventually(t, func() bool {
		ours, theirs = watchLists(w)
		return slices.Equal(ours, want) && slices.Equal(theirs, want)
	}, func() string {
		return fmt.Sprintf("watcher believes it watches %v, fsnotify watches %v, want %v", ours, theirs, want)
	})
}

// EventuallyPending waits until a change of target is being debounced:
// the watcher has handled its event and not yet reported it.
func EventuallyPending(t *testing.T, w *Watcher, target string) {
	t.Helper()
	eventually(t, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.pending[target]
	}, func() string { return "no change of " + target + " is pending" })
}
