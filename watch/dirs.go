package watch

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// reconcile makes the watched directories exactly those the targets need now:
// for each target, the deepest existing directory on the way to it. Targets
// below a newly watched directory are marked pending, because they may have
// changed before the watch existed (mkdir -p then write, faster than us).
// dropped, when not "", is a directory whose watch fsnotify dropped (it was
// deleted or moved): it is forgotten first, so it is watched again if it
// is already back.
//
// It stats directories and adds and removes inotify watches, so it runs
// without w.mu (a hung network or FUSE directory must not stall Set, the
// events or the flush), under w.dirsMu, which owns w.watched. A Set that
// changes the targets meanwhile calls reconcile after it, which then sees
// them: the targets are read after w.dirsMu is taken.
func (w *Watcher) reconcile(dropped string) error {
	w.dirsMu.Lock()
	defer w.dirsMu.Unlock()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	targets := slices.Collect(maps.Keys(w.targets))
	w.mu.Unlock()

	if dropped != "" && w.watched[dropped] {
		w.unwatch(dropped)
	}
	need := map[string]bool{}
	failed := map[string]error{}
	var errs []error
	var fresh []string
	for _, t := range targets {
		dir, err := w.watchNearest(filepath.Dir(t), failed, &fresh)
		if err != nil {
			errs = append(errs, fmt.Errorf("watch: no directory above %s can be watched: %w", t, err))
			continue
		}
		need[dir] = true
	}
	for dir := range w.watched {
		if !need[dir] {
			w.unwatch(dir)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, dir := range fresh {
		if need[dir] && !w.closed {
			w.markBelow(dir)
		}
	}
	return errors.Join(errs...)
}

// watchNearest watches the deepest existing directory on the way from the
// root to dir and returns it. When adding a watch fails it falls back up;
// after each success it looks one level down again, so a directory created
// while we were climbing is not missed. failed remembers the directories that
// could not be watched during this reconcile, which also bounds the climbing.
func (w *Watcher) watchNearest(dir string, failed map[string]error, fresh *[]string) (string, error) {
	at := w.nearestExistingDir(dir)
	for {
		if err := w.watchOnce(at, failed, fresh); err != nil {
			up := filepath.Dir(at)
			if up == at {
				return "", err
			}
			at = up
			continue
		}
		next := stepToward(at, dir)
		if next == "" || failed[next] != nil || !w.isDir(next) {
			return at, nil
		}
		at = next
	}
}

func (w *Watcher) watchOnce(dir string, failed map[string]error, fresh *[]string) error {
	if err := failed[dir]; err != nil {
		return err
	}
	if w.watched[dir] {
		return nil
	}
	if err := w.fsw.Add(dir); err != nil {
		failed[dir] = err
		return err
	}
	w.watched[dir] = true
	*fresh = append(*fresh, dir)
	return nil
}

func (w *Watcher) unwatch(dir string) {
	// The error is expected when fsnotify already dropped the watch because
	// the directory was deleted or moved; either way it is no longer watched.
	_ = w.fsw.Remove(dir)
	delete(w.watched, dir)
}

func (w *Watcher) nearestExistingDir(dir string) string {
	for !w.isDir(dir) {
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return dir
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
