package watch

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Set replaces the set of target files (absolute paths; cleaned by Set).
// Directories are watched as needed: the parent of each target, or when it
// does not exist yet, the nearest existing ancestor, climbing back down as the
// missing directories are created and falling back up when they are removed.
// Set records each target's current content hash (missing = its own state), so
// only later changes are reported.
//
// A target that was already in the set keeps its recorded state, so a change
// that is still being debounced is reported rather than absorbed. If a path is
// not absolute, nothing changes. If some directory cannot be watched, the set
// is replaced anyway and the error says which targets are affected.
func (w *Watcher) Set(paths []string) error {
	targets := make(map[string]bool, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("watch: target %q is not an absolute path", p)
		}
		targets[filepath.Clean(p)] = true
	}

	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}

	next := make(map[string]fileState, len(targets))
	var added []string
	for t := range targets {
		st, ok := w.targets[t]
		if !ok {
			added = append(added, t)
		}
		next[t] = st
	}
	w.targets = next
	for t := range w.pending {
		if !targets[t] {
			delete(w.pending, t)
		}
	}

	w.mu.Unlock()
	// Watch before hashing, so that no change after the hash can go unseen.
	err := w.reconcile("")
	if errors.Is(err, ErrClosed) {
		return err
	}

	// Hash without w.mu (a slow disk must not stall the events), then
	// record the states of the targets no later Set replaced meanwhile. A
	// flush that met one of them still unread kept it pending: flush again,
	// so that a change made after it was read here is reported.
	states := readStates(added)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, t := range added {
		if st, still := w.targets[t]; still && st.kind == stateUnknown {
			w.targets[t] = states[i]
			if w.pending[t] {
				w.markPending(t)
			}
		}
	}
	return err
}
