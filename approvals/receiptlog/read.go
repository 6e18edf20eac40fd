package receiptlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// Log is the decision log at Path (approvals.DefaultDecisionLogPath) and
// its rotated generations, read as receipts.
type Log struct {
	Path string
	// Skip is told of each line that is not shown (longer than
	// MaxLineBytes, not a receipt); nil ignores them. The line itself is
	// never repeated: it may hold what the log masks.
	Skip func(Skipped)
	// Poll is how often Follow looks for new lines; 0 is DefaultPoll.
	Poll time.Duration
}

// DefaultPoll is how often Follow looks at the log: new decisions show
// within a quarter of a second, at the cost of four stat calls a second.
const DefaultPoll = 250 * time.Millisecond

// Reader reads one snapshot of the log: the files that existed when it
// was opened, oldest first. Scan reads them; Follow then goes on with
// what is appended after, across rotations. A Reader is used by one
// goroutine; Close releases its files.
type Reader struct {
	log   Log
	files []logFile
	// newest reads the newest file; Follow goes on reading it.
	newest *follower
}

// Open opens the log and its generations for reading. A log that does
// not exist yet is an empty Reader (Files is empty), not an error; a log
// that is not a regular file, or a symlink, is an error naming it.
func (l Log) Open() (*Reader, error) {
	files, err := openAll(l.Path)
	if errors.Is(err, ErrNoLog) {
		return &Reader{log: l}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Reader{log: l, files: files}, nil
}

// Files names the files the Reader reads, oldest first.
func (r *Reader) Files() []string {
	names := make([]string, len(r.files))
	for i, f := range r.files {
		names[i] = f.name
	}
	return names
}

// Close closes every file the Reader holds.
func (r *Reader) Close() error {
	var errs []error
	for _, f := range r.files {
		errs = append(errs, f.file.Close())
	}
	if r.newest != nil {
		errs = append(errs, r.newest.close())
	}
	r.files, r.newest = nil, nil
	return errors.Join(errs...)
}

// Scan calls fn with every receipt f selects, oldest first, and stops at
// the end of the newest file, where Follow goes on. A line being written
// at the end of the newest file is left for Follow.
func (r *Reader) Scan(f Filter, fn func(approvals.Receipt)) error {
	for i, lf := range r.files {
		if i == len(r.files)-1 {
			r.newest = newFollower(lf)
			r.files = r.files[:i]
			return r.newest.read(r.log, f, fn)
		}
		lines := newLineReader(lf.name, lf.file)
		if err := readLines(r.log, lines, f, fn); err != nil {
			return err
		}
		if line, skipped, ok := lines.rest(); ok {
			r.log.take(line, skipped, lines, f, fn)
		}
	}
	return nil
}

// Last is Scan keeping only the last n receipts f selects (all of them
// when n <= 0), oldest first, and how many f selected in all.
func (r *Reader) Last(f Filter, n int) ([]approvals.Receipt, int, error) {
	var (
		ring    []approvals.Receipt
		matched int
	)
	err := r.Scan(f, func(rc approvals.Receipt) {
		if n <= 0 || len(ring) < n {
			ring = append(ring, rc)
		} else {
			ring[matched%n] = rc
		}
		matched++
	})
	if n > 0 && matched > n {
		// The oldest kept is where the next would have gone.
		start := matched % n
		ring = slices.Concat(ring[start:], ring[:start])
	}
	return ring, matched, err
}

// readLines calls fn with each receipt f selects among lines' whole lines.
func readLines(l Log, lines *lineReader, f Filter, fn func(approvals.Receipt)) error {
	for {
		line, skipped, err := lines.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot read the decision log %s: %w", lines.name, err)
		}
		l.take(line, skipped, lines, f, fn)
	}
}

// take decodes one line and hands its receipt to fn when f selects it;
// a line that is no receipt goes to l.Skip.
func (l Log) take(line []byte, skipped *Skipped, lines *lineReader, f Filter, fn func(approvals.Receipt)) {
	if skipped == nil {
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		rc, err := Decode(line)
		if err == nil {
			if f.Match(rc) {
				fn(rc)
			}
			return
		}
		skipped = &Skipped{File: lines.name, Line: lines.line, Why: err.Error()}
	}
	if l.Skip != nil {
		l.Skip(*skipped)
	}
}

// Decode reads one line of the log as a receipt, written by this release
// (v1) or before receipts (no "v"), with every text masked again
// (approvals.Receipt.Masked): a line written before the log masked
// secrets shows none either. The error never quotes the line.
func Decode(line []byte) (approvals.Receipt, error) {
	var rc approvals.Receipt
	if err := json.Unmarshal(line, &rc); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return rc, fmt.Errorf("not JSON (at byte %d)", syntax.Offset)
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return rc, fmt.Errorf("not a receipt: %q is not a %s", typeErr.Field, typeErr.Type)
		}
		return rc, errors.New("not a receipt")
	}
	if rc.Time.IsZero() || rc.Decision == "" {
		return rc, errors.New("not a receipt: it has no time or no decision")
	}
	return rc.Masked(), nil
}
