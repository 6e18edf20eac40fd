package policyfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Rewrite replaces the regular file at path (not a symlink: resolve it
// first) with what edit makes of its content: temp file in the same
// directory, fsync, rename or exchange, fsync of the directory, a save
// landing meanwhile re-read and edited again (see Rewriter.Rewrite). The
// file keeps its mode; a new one gets newMode. edit sees nil and false
// for a missing file; when it returns the content unchanged (or nil for a
// missing file) nothing is written. changed reports a write.
func Rewrite(path string, newMode fs.FileMode, edit func(old []byte, exists bool) ([]byte, error)) (changed bool, err error) {
	return Rewriter{Mode: newMode, KeepMode: true}.Rewrite(path, edit)
}

// A Rewriter is Rewrite with the mode and the wording its caller needs:
// approvals.AppendRules gives permissions.toml mode 0600 whatever mode it
// had, and says that the rules were not saved.
type Rewriter struct {
	Mode     fs.FileMode // of a new file, and of every file unless KeepMode
	KeepMode bool        // an existing file keeps its own mode
	// Fail words a failure of the rewrite itself (what is "cannot read
	// it", "cannot replace it" or "it kept changing while it was
	// written"); edit's own errors are returned as they are. nil words
	// them as Rewrite does.
	Fail func(path, what string, err error) error
}

// failure is err worded by r.Fail, or as Rewrite words it.
func (r Rewriter) failure(path, what string, err error) error {
	if r.Fail == nil {
		return fmt.Errorf("cannot write %s: %s: %w", path, what, err)
	}
	return r.Fail(path, what, err)
}

// Rewrite replaces the file at path with what edit makes of its content,
// atomically: temp file in the same directory, fsync, rename, fsync of
// the directory. The file is read without following a symlink, and one
// that is a symlink or not a regular file is refused (Codewhale refuses
// approval saves to a symlinked file). Editors save without any lock of
// ours: a save made meanwhile is re-read before the new file goes in, and
// the new file goes in by exchanging it with the old one, so that a save
// landing at the last moment comes out of the exchange, is seen, and is
// put back, and edit starts over from it: the user's bytes are never
// lost. (Where the file system cannot exchange, a plain rename follows the
// re-read, which leaves a window of microseconds.) Writers of one file
// that must not lose each other's edits hold LockExclusive around it.
func (r Rewriter) Rewrite(path string, edit func(old []byte, exists bool) ([]byte, error)) (changed bool, err error) {
	return r.rewrite(path, edit, hooks{install: installFile})
}

// hooks let this package's tests fail the install (the tests run as root
// here, which writes into read-only directories) and save the file as an
// editor would while it is being rewritten.
type hooks struct {
	install       func(tmp, path string, exists bool) (exchanged bool, err error)
	written       func() // nil, or called once the temporary file is complete
	beforeInstall func() // nil, or called after the re-read, just before the install
}

// rewrite is Rewrite with the hooks.
func (r Rewriter) rewrite(path string, edit func(old []byte, exists bool) ([]byte, error), h hooks) (bool, error) {
	for range maxRewriteAttempts {
		old, err := readTarget(path)
		if err != nil {
			return false, r.failure(path, "cannot read it", err)
		}
		content, err := edit(old.content, old.exists)
		if err != nil {
			return false, err
		}
		if (!old.exists && content == nil) || (old.exists && bytes.Equal(content, old.content)) {
			return false, nil
		}
		mode := r.Mode
		if old.exists && r.KeepMode {
			mode = old.mode
		}
		replaced, err := h.replace(path, content, old, mode)
		if err != nil {
			return false, r.failure(path, "cannot replace it", err)
		}
		if replaced {
			return true, nil
		}
	}
	return false, r.failure(path, "it kept changing while it was written", errors.New("nothing was written"))
}

// maxRewriteAttempts bounds how often a rewrite starts over because the
// file changed under it.
const maxRewriteAttempts = 5

// target is the file to be replaced, as a rewrite read it.
type target struct {
	content []byte
	exists  bool
	ino     uint64
	dev     uint64
	size    int64
	mtime   int64
	mode    fs.FileMode
}

// same reports whether t and u are the same file with the same content.
func (t target) same(u target) bool {
	return t.exists == u.exists && t.ino == u.ino && t.dev == u.dev && t.size == u.size && t.mtime == u.mtime && bytes.Equal(t.content, u.content)
}

// readTarget reads the file to be replaced without following a symlink:
// Codewhale refuses approval saves to a symlinked file, and replacing the
// link with a plain file would cut off the file it points to.
func readTarget(path string) (target, error) {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return target{}, nil
	}
	if err != nil {
		return target{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return target{}, err
	}
	content, err := ReadAll(f)
	if err != nil {
		return target{}, err
	}
	t := target{content: content, exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode().Perm()}
	t.ino, t.dev = fileIdentity(fi)
	return t, nil
}

// LockExclusive blocks until this caller holds the writers' lock at
// lockPath (created 0600 if missing, and left in place; never through a
// symlink), and returns how to release it. Each call opens the lock file
// itself so the lock also serialises goroutines of one process.
func LockExclusive(lockPath string) (unlock func(), err error) {
	f, err := OpenNoFollow(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	// Closing the only descriptor releases the lock.
	return func() { f.Close() }, nil
}

// replace writes content to path atomically with mode, unless path is no
// longer what was read (then it reports false and leaves path as the
// editor saved it). The temp file is removed on any failure before the
// install.
func (h hooks) replace(path string, content []byte, read target, mode fs.FileMode) (bool, error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return false, fmt.Errorf("cannot create a temporary file: %w", err)
	}
	installed := false
	defer func() {
		if !installed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(content); err != nil {
		return false, fmt.Errorf("cannot write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return false, fmt.Errorf("cannot set the mode of %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return false, fmt.Errorf("cannot fsync %s: %w", tmp.Name(), err)
	}
	ours, err := readTarget(tmp.Name())
	if err != nil {
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("cannot close %s: %w", tmp.Name(), err)
	}
	if h.written != nil {
		h.written()
	}
	now, err := readTarget(path)
	if err != nil {
		return false, err
	}
	if !now.same(read) {
		return false, nil
	}
	if h.beforeInstall != nil {
		h.beforeInstall()
	}
	exchanged, err := h.install(tmp.Name(), path, read.exists)
	if errors.Is(err, fs.ErrExist) {
		return false, nil // created by an editor since the read
	}
	if err != nil {
		return false, err
	}
	installed = true
	if exchanged {
		// tmp.Name() now holds what was at path.
		if ok, err := h.keptUnchanged(tmp.Name(), path, read, ours); !ok {
			return false, err
		}
	}
	if err := syncDir(dir); err != nil {
		return true, fmt.Errorf("installed, but the directory could not be fsynced, so the change may not survive a crash: %w", err)
	}
	return true, nil
}

// keptUnchanged checks what the exchange took out of path (now at
// displacedAt) against what the rewrite read. The same file: it is
// removed and the rewrite stands. An editor's save that landed after the
// re-read: it is exchanged back in, and false asks the caller to start
// over from it. A displaced file that is neither is never removed: the
// error says where it is.
func (h hooks) keptUnchanged(displacedAt, path string, read, ours target) (bool, error) {
	displaced, err := readTarget(displacedAt)
	if err == nil && displaced.same(read) {
		return true, os.Remove(displacedAt)
	}
	if _, err := h.install(displacedAt, path, true); err != nil {
		return false, fmt.Errorf("an editor saved it while it was written, and its save could not be put back (%w); it is kept at %s", err, displacedAt)
	}
	back, err := readTarget(displacedAt)
	if err != nil || !back.same(ours) {
		return false, fmt.Errorf("an editor saved it twice while it was written; one of its saves is kept at %s", displacedAt)
	}
	return false, os.Remove(displacedAt)
}

// installFile puts tmp at path: where path exists, by exchanging the two
// (renameat2 RENAME_EXCHANGE), so that what was at path comes out at tmp;
// where it does not, by a rename that fails with fs.ErrExist if path
// appeared meanwhile. Where the file system cannot do either, a plain
// rename (exchanged = false).
func installFile(tmp, path string, exists bool) (exchanged bool, err error) {
	if exists {
		err = exchangeFiles(tmp, path)
	} else {
		err = renameNoReplace(tmp, path)
	}
	if errors.Is(err, errNoAtomicInstall) {
		return false, os.Rename(tmp, path)
	}
	return exists && err == nil, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
