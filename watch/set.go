package watch

import (
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
	defer w.mu.Unlock()
	if w.closed {
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

	// Watch before hashing, so that no change after the hash can go unseen.
	err := w.reconcile()
	for _, t := range added {
		w.targets[t] = readState(t)
	}
	return err
}
