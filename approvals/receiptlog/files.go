// Package receiptlog reads the decision log that approvals.DecisionLog
// writes (docs/codewhale/contract.md §4, "Receipts"): the log and its
// rotated generations, oldest first, one receipt per line; filters them;
// follows the log as it grows and rotates (`tail -f`); finds a receipt by
// its id; and renders receipts for people, every text made visible
// (gate/problem.Visible). `codewhale-ls log` and the editors' log views
// read through it.
//
// The log is the user's alone, but it may have been replaced by anything
// (a FIFO, a symlink, a file of one enormous line): no file is opened in
// a way that can block, none through a symlink, and no line is held in
// memory past MaxLineBytes.
package receiptlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// maxGenerations bounds how many rotated files are looked for beside the
// log: far more than any [log] generations setting needs.
const maxGenerations = 1000

// errNoLog is why nothing was read: neither the log nor any rotated
// generation of it exists yet.
var errNoLog = errors.New("no decisions recorded yet")

// generation is the path of the g-th rotated file (1 the newest), as
// approvals.DecisionLog rotates it.
func generation(path string, g int) string {
	return fmt.Sprintf("%s.%d", path, g)
}

// openLogFile opens one file of the log for reading: a regular file only,
// never through a symlink, never blocking (a FIFO planted at the path is
// refused, not waited on). The error names the path and says what to do.
func openLogFile(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // the path is said once, below
		}
		return nil, fmt.Errorf("cannot read the decision log %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symlink: codewhale-ls reads its decision log only as the regular file it writes itself (remove the link, or name the file with --file)", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): it is not a decision log codewhale-ls wrote (remove it; the next decision starts a new log)", path, policyfile.Kind(fi.Mode()))
	}
	// The path may have been replaced since Lstat: OpenNoFollow refuses
	// a link and anything but a regular file in the open itself.
	f, err := policyfile.OpenNoFollow(path, os.O_RDONLY, 0)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("cannot read the decision log: %w (a decision log is its user's alone, 0600: read it as the user whose agents and editors wrote it)", err)
	case err != nil:
		return nil, fmt.Errorf("cannot read the decision log: %w", err)
	}
	return f, nil
}

// logFile is one open file of the log and its name.
type logFile struct {
	name string
	file *os.File
	info fs.FileInfo
}

// underWritersLock runs open holding the writers' lock beside the log
// (path + ".lock", which approvals.DecisionLog holds to append a line and
// to rotate), so that no rotation is half done, a generation renamed and
// the next not yet, while the log's files are opened. Opening takes
// microseconds; a writer waits that long at most. A log no writer has
// locked (a copy named with --file) is read without creating a lock
// beside it; when the lock cannot be taken (a log in a directory the
// reader may not write), open runs without it, and a rotation meanwhile
// may hide a generation.
func underWritersLock(path string, open func() error) error {
	lock := path + ".lock"
	if _, err := os.Lstat(lock); err == nil {
		if unlock, err := policyfile.LockExclusive(lock); err == nil {
			defer unlock()
		}
	}
	return open()
}

// openAll opens the log at path and its rotated generations, and returns
// them oldest first, under the writers' lock. Opening runs newest first
// and drops a file already open under another name: without the lock, a
// writer rotating meanwhile renames the log to .1 (and .1 to .2 …), so
// what is opened is still one history, at worst without a generation
// deleted or a log started since. errNoLog when none exists.
func openAll(path string) (files []logFile, err error) {
	err = underWritersLock(path, func() error {
		files, err = openGenerations(path)
		return err
	})
	return files, err
}

// openGenerations is openAll without the lock.
func openGenerations(path string) ([]logFile, error) {
	var newestFirst []logFile
	closeAll := func() {
		for _, f := range newestFirst {
			f.file.Close()
		}
	}
	for g := 0; g <= maxGenerations; g++ {
		name := path
		if g > 0 {
			name = generation(path, g)
		}
		f, err := openLogFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			if g == 0 {
				continue // rotated away; the writer starts it again at once
			}
			break
		}
		if err != nil {
			closeAll()
			return nil, err
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			closeAll()
			return nil, fmt.Errorf("cannot read the decision log %s: %w", name, err)
		}
		if opened(newestFirst, info) {
			f.Close()
			continue
		}
		newestFirst = append(newestFirst, logFile{name: name, file: f, info: info})
	}
	if len(newestFirst) == 0 {
		return nil, errNoLog
	}
	oldestFirst := make([]logFile, len(newestFirst))
	for i, f := range newestFirst {
		oldestFirst[len(newestFirst)-1-i] = f
	}
	return oldestFirst, nil
}

// opened reports whether info is one of files.
func opened(files []logFile, info fs.FileInfo) bool {
	for _, f := range files {
		if os.SameFile(f.info, info) {
			return true
		}
	}
	return false
}
