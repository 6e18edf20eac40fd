// Package gitroot finds the git work tree a path lies in. It has no
// dependency on the rest of gate, so both the configuration loader (the
// workspace is the git root, docs/codewhale/contract.md §2) and release
// detection (a work tree's own codewhale is never run) use the same test.
package gitroot

import (
	"os"
	"path/filepath"
)

// Of returns the nearest ancestor of dir (itself included) holding a .git
// entry (a directory, or the file of a linked work tree or submodule), or
// "".
func Of(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
