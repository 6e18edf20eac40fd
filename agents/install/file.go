package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// Change is one planned edit of a settings file: shown first (Diff), then
// written (Apply) only if the file still holds what was shown.
type Change struct {
	Path   string // the settings file as named
	Target string // where its bytes are: Path, or the file a symlink at Path leads to
	Old    []byte
	New    []byte
	Exists bool
	// Private writes the file as Codewhale writes permissions.toml: mode
	// 0600 (its directory 0700), under an exclusive lock on Target+".lock"
	// that Codewhale's own approval saves also take.
	Private bool
}

// Empty reports a change that changes nothing.
func (c Change) Empty() bool { return bytes.Equal(c.Old, c.New) }

// Diff is the change as a unified diff ("" when empty).
func (c Change) Diff() string {
	if c.Empty() {
		return ""
	}
	return Diff(c.Path, c.Old, c.New)
}

// Plan reads the settings file at path (through a symlink to the file it
// names, so the link stays a link) and applies edit to its content.
// The read never blocks and is bounded (policyfile); a file that is not
// regular is refused.
func Plan(path string, edit func(old []byte, exists bool) ([]byte, error)) (Change, error) {
	target, err := resolve(path)
	if err != nil {
		return Change{}, err
	}
	old, err := policyfile.Read(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	updated, err := edit(old, exists)
	if err != nil {
		return Change{}, fmt.Errorf("%s: %w", path, err)
	}
	return Change{Path: path, Target: target, Old: old, New: updated, Exists: exists}, nil
}

// resolve follows a symlink at path to the file it names; path itself
// when it is not a link or does not exist. A dangling link is refused:
// creating its target would put a file where nobody looked.
func resolve(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s is a symlink that cannot be followed: %w", path, err)
	}
	return target, nil
}

// Apply writes the change atomically (policyfile.Rewrite: temp file,
// rename or exchange, the file's mode kept, 0644 for a new file), only
// if the file still holds the bytes the diff was made from: a save made
// since is kept and the change refused.
func (c Change) Apply() error {
	if c.Empty() {
		return nil
	}
	rewriter, dirMode := policyfile.Rewriter{Mode: 0o644, KeepMode: true}, fs.FileMode(0o755)
	if c.Private {
		rewriter, dirMode = policyfile.Rewriter{Mode: 0o600}, 0o700
	}
	if !c.Exists {
		if err := os.MkdirAll(filepath.Dir(c.Target), dirMode); err != nil {
			return fmt.Errorf("cannot create the directory of %s: %w", c.Path, err)
		}
	}
	if c.Private {
		unlock, err := policyfile.LockExclusive(c.Target + ".lock")
		if err != nil {
			return fmt.Errorf("cannot lock %s.lock: %w", c.Target, err)
		}
		defer unlock()
	}
	_, err := rewriter.Rewrite(c.Target, func(current []byte, exists bool) ([]byte, error) {
		if exists != c.Exists || !bytes.Equal(current, c.Old) {
			return nil, fmt.Errorf("%s changed since the change was shown; nothing was written, run the command again", c.Path)
		}
		return c.New, nil
	})
	return err
}
