package watch_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/watch"
)

// docs/codewhale/deps.md §3 C–C3: the target's directory does not exist yet, at one or two
// levels, created at once (mkdir -p) or one level at a time.
func TestDirectoryCreatedLater(t *testing.T) {
	cases := []struct {
		name     string
		missing  string // the highest missing directory, relative to the temp dir
		stepwise bool   // each directory made once the watcher watches the one above
	}{
		{"one level, at once", "ws/.codewhale", false},
		{"one level, stepwise", "ws/.codewhale", true},
		{"two levels, at once", "ws", false},
		{"two levels, stepwise", "ws", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(tc.missing)), 0o755))
			target := filepath.Join(root, "ws", ".codewhale", "permissions.toml")
			w, rec := start(t, quick, target)

			for _, dir := range []string{filepath.Join(root, "ws"), filepath.Join(root, "ws", ".codewhale")} {
				if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
					t.Fatal(err)
				}
				if tc.stepwise {
					// The watcher climbs down to dir before the next is made.
					watch.EventuallyWatching(t, w, dir)
				}
			}
			write(t, target, "x")
			rec.waitFor(t, target)

			// Climbed back down: an in-place write is still seen.
			write(t, target, "y")
			rec.waitFor(t, target)
		})
	}
}

// docs/codewhale/deps.md §3 C3: the directory is removed (the sub-watch is dropped), then
// re-created, at one or two levels, slowly or immediately.
func TestDirectoryRemovedAndRecreated(t *testing.T) {
	cases := []struct {
		name    string
		removed string // relative to the temp dir
		pause   bool   // wait for the deletion report before re-creating
	}{
		{"one level", "ws/.codewhale", true},
		{"two levels", "ws", true},
		{"one level, re-created at once", "ws/.codewhale", false},
		{"two levels, re-created at once", "ws", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			target := filepath.Join(root, "ws", ".codewhale", "permissions.toml")
			write(t, target, "v1")
			_, rec := start(t, quick, target)

			must(t, os.RemoveAll(filepath.Join(root, tc.removed)))
			if tc.pause {
				rec.waitFor(t, target)
			}
			write(t, target, "v2")
			rec.waitFor(t, target)

			// The re-created directory is watched, not the old, deleted one.
			write(t, target, "v3")
			rec.waitFor(t, target)
		})
	}
}

// A directory on the way is moved away and another put in its place.
func TestDirectoryRenamedAway(t *testing.T) {
	root := t.TempDir()
	target, probe := filepath.Join(root, "ws", ".codewhale", "permissions.toml"), filepath.Join(root, "probe.toml")
	write(t, target, "v1")
	_, rec := start(t, quick, target, probe)

	dir := filepath.Join(root, "ws", ".codewhale")
	must(t, os.Rename(dir, dir+".old"))
	rec.waitFor(t, target)
	write(t, target, "v2")
	rec.waitFor(t, target)
	write(t, dir+".old/permissions.toml", "v9") // no longer the target
	write(t, target, "v3")
	rec.waitFor(t, target)
	rec.expectOnly(t, probe)
}
