package approvals

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Rotation is when the decision log is rotated and how much of it is
// kept: before a line would take the log past MaxBytes, decisions.jsonl
// becomes decisions.jsonl.1, .1 becomes .2 and so on, the oldest of
// Generations rotated files is deleted, and a new log is started. At
// DefaultRotation the log and its history take at most about 40 MiB.
type Rotation struct {
	// MaxBytes is the size past which the log is rotated; 0 or less
	// never rotates. A single line longer than MaxBytes still goes whole
	// into a log of its own.
	MaxBytes int64
	// Generations is how many rotated files are kept (decisions.jsonl.1
	// is the newest); 0 or less keeps none.
	Generations int
}

// DefaultRotation rotates the log at 10 MiB (tens of thousands of
// decisions) and keeps three rotated files.
var DefaultRotation = Rotation{MaxBytes: 10 << 20, Generations: 3}

// full reports whether a line of n bytes would take a log of size bytes
// past r.MaxBytes; an empty log is never full.
func (r Rotation) full(size, n int64) bool {
	return r.MaxBytes > 0 && size > 0 && size+n > r.MaxBytes
}

// maxReopens bounds how often one append follows the log to a new file:
// once because another writer rotated it, once because this one did.
const maxReopens = 3

// current returns the open log, the file now at l.path, and its size,
// rotated first if a line of n bytes would overflow it. The caller holds
// the writers' lock, so no other writer rotates or writes meanwhile; a
// writer whose file was rotated away by another process (a long-lived
// editor's server, say) reopens the path here instead of writing into
// a file that may already be deleted.
func (l *DecisionLog) current(n int64) (*os.File, int64, error) {
	for range maxReopens {
		f := l.file.Load()
		if f == nil {
			return nil, 0, errors.New("the decision log is not open")
		}
		held, err := f.Stat()
		if err != nil {
			return nil, 0, fmt.Errorf("cannot read the decision log %s: %w", l.path, err)
		}
		onDisk, err := os.Lstat(l.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Rotated away by another writer that has not yet written
			// its line to a new file: start it.
		case err != nil:
			return nil, 0, fmt.Errorf("cannot read the decision log %s: %w", l.path, err)
		case !os.SameFile(held, onDisk):
			// Rotated, or replaced; openLogFile refuses a symlink or FIFO.
		case !l.rotation.full(held.Size(), n):
			return f, held.Size(), nil
		default:
			if err := l.rotate(); err != nil {
				return nil, 0, err
			}
		}
		reopened, err := openLogFile(l.path)
		if err != nil {
			return nil, 0, err
		}
		if !l.file.CompareAndSwap(f, reopened) {
			reopened.Close()
			return nil, 0, errors.New("the decision log is not open")
		}
		f.Close()
	}
	return nil, 0, fmt.Errorf("the decision log %s kept changing while it was written", l.path)
}

// rotate moves each generation one down (the log to .1, .1 to .2, …),
// deleting the oldest; the caller holds the writers' lock. Renaming a
// symlink moves the link, never what it points to.
func (l *DecisionLog) rotate() error {
	keep := l.rotation.Generations
	if keep <= 0 {
		if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot rotate the decision log: %w", err)
		}
		return nil
	}
	if err := os.Remove(l.generation(keep)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot rotate the decision log: %w", err)
	}
	for g := keep - 1; g >= 1; g-- {
		if err := os.Rename(l.generation(g), l.generation(g+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot rotate the decision log: %w", err)
		}
	}
	if err := os.Rename(l.path, l.generation(1)); err != nil {
		return fmt.Errorf("cannot rotate the decision log: %w", err)
	}
	return nil
}

// generation is the path of the g-th rotated file, 1 the newest.
func (l *DecisionLog) generation(g int) string {
	return fmt.Sprintf("%s.%d", l.path, g)
}

// writeLine writes line to f, a log of size bytes, with one write; when
// the write fails part way (a full disk), the part written is cut off
// again so that the next line does not follow a torn one.
func writeLine(f *os.File, size int64, line []byte) error {
	n, err := f.Write(line)
	if err != nil && n > 0 {
		if cut := f.Truncate(size); cut != nil {
			return fmt.Errorf("%w (and the part written could not be removed: %v)", err, cut)
		}
	}
	return err
}
