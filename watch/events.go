package watch

import (
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// handle treats any event on a target, or on a directory on the way to one,
// as "maybe changed": save styles differ too much for the event sequence to
// be trusted, so flush decides by hash.
func (w *Watcher) handle(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if _, ok := w.targets[name]; ok {
		w.markPending(name)
	}
	onTheWay := w.markBelow(name)
	w.mu.Unlock()
	if !onTheWay {
		return
	}
	dropped := ""
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// fsnotify drops the watch of a directory that is deleted or moved.
		dropped = name
	}
	// No logger to report to; the next event on the way, or the next Set,
	// retries whatever failed.
	_ = w.reconcile(dropped)
}

// recheckAll recovers from lost events by treating everything as changed.
func (w *Watcher) recheckAll() {
	_ = w.reconcile("")
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for t := range w.targets {
		w.markPending(t)
	}
}

// flush re-reads the pending targets and returns, sorted, those whose state
// differs from the one last recorded, recording the new state. The files
// are read without w.mu: a slow disk must not stall Set or the events.
func (w *Watcher) flush() []string {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	pending := slices.Collect(maps.Keys(w.pending))
	clear(w.pending)
	w.mu.Unlock()

	states := readStates(pending)

	w.mu.Lock()
	defer w.mu.Unlock()
	var changed []string
	for i, t := range pending {
		old, still := w.targets[t]
		switch {
		case !still:
		case old.kind == stateUnknown:
			// Set is reading it now; once it has recorded what it read,
			// it flushes again to report what changed since.
			w.pending[t] = true
		case states[i] != old:
			w.targets[t] = states[i]
			changed = append(changed, t)
		}
	}
	slices.Sort(changed)
	return changed
}

// markBelow marks the targets inside dir and reports whether there were any,
// that is, whether dir is on the way to a target.
func (w *Watcher) markBelow(dir string) bool {
	found := false
	for t := range w.targets {
		if isBelow(t, dir) {
			w.markPending(t)
			found = true
		}
	}
	return found
}

// markPending restarts the quiet period, so a burst of events is one flush,
// but never past maxWaits debounces after the burst began: a file that is
// rewritten without pause is still re-read.
func (w *Watcher) markPending(target string) {
	now := time.Now()
	if len(w.pending) == 0 {
		w.burstStart = now
	}
	w.pending[target] = true
	delay := min(w.debounce, w.burstStart.Add(maxWaits*w.debounce).Sub(now))
	w.quiet.Reset(max(delay, 0))
}

// maxWaits bounds how many debounce periods a continuous burst can delay a
// flush.
const maxWaits = 4
