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
	"github.com/codewhale-ls/codewhale-ls/gate"
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
	return r.scan(f, r.log.shown(fn))
}

// shown decodes an entry whole and hands its receipt, masked again, to fn.
func (l Log) shown(fn func(approvals.Receipt)) func(entry) {
	return func(e entry) {
		if rc, ok := l.receipt(e); ok {
			fn(rc.Masked())
		}
	}
}

// scan calls fn with the entry of every line f selects, not yet decoded
// whole: decoding a receipt whole, and masking it again, cost far more
// than reading what the filters read, so only the receipts shown pay.
func (r *Reader) scan(f Filter, fn func(entry)) error {
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
		ring    []entry
		matched int
	)
	err := r.scan(f, func(e entry) {
		if n <= 0 || len(ring) < n {
			ring = append(ring, e)
		} else {
			ring[matched%n] = e
		}
		matched++
	})
	if n > 0 && matched > n {
		// The oldest kept is where the next would have gone.
		start := matched % n
		ring = slices.Concat(ring[start:], ring[:start])
	}
	receipts := make([]approvals.Receipt, 0, len(ring))
	keep := r.log.shown(func(rc approvals.Receipt) { receipts = append(receipts, rc) })
	for _, e := range ring {
		keep(e)
	}
	return receipts, matched, err
}

// readLines hands fn the entry of each whole line of lines f selects.
func readLines(l Log, lines *lineReader, f Filter, fn func(entry)) error {
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

// entry is a line of the log whose header a filter selected.
type entry struct {
	line []byte
	// at names the line, should it be no receipt after all.
	at Skipped
}

// header is what filters read of a receipt: decoding only it skips the
// rest of the line without building it.
type header struct {
	ID       string       `json:"id"`
	Time     time.Time    `json:"time"`
	Agent    string       `json:"agent"`
	Repo     string       `json:"repo"`
	Tool     string       `json:"tool"`
	Decision gate.Verdict `json:"decision"`
}

// take hands fn the entry of one line when f selects it; a line that is
// no receipt goes to l.Skip.
func (l Log) take(line []byte, skipped *Skipped, lines *lineReader, f Filter, fn func(entry)) {
	at := Skipped{File: lines.name, Line: lines.line}
	if skipped == nil {
		if len(bytes.TrimSpace(line)) == 0 || !f.mayMatch(line) {
			return
		}
		var h header
		err := decode(line, &h)
		if err == nil && (h.Time.IsZero() || h.Decision == "") {
			err = errors.New("not a receipt: it has no time or no decision")
		}
		if err == nil {
			if f.matches(h) {
				fn(entry{line: line, at: at})
			}
			return
		}
		at.Why = err.Error()
		skipped = &at
	}
	if l.Skip != nil {
		l.Skip(*skipped)
	}
}

// receipt decodes e whole, written by this release (v1) or before
// receipts (no "v"); false, told to l.Skip, when it is no receipt after
// all. Before it is shown, every text is masked again
// (approvals.Receipt.Masked), so that a line written before the log
// masked secrets shows none either.
func (l Log) receipt(e entry) (approvals.Receipt, bool) {
	var rc approvals.Receipt
	if err := decode(e.line, &rc); err != nil {
		e.at.Why = err.Error()
		if l.Skip != nil {
			l.Skip(e.at)
		}
		return rc, false
	}
	return rc, true
}

// decode reads line into v; the error never quotes the line, which may
// hold what the log masks.
func decode(line []byte, v any) error {
	err := json.Unmarshal(line, v)
	if err == nil {
		return nil
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Errorf("not JSON (at byte %d)", syntax.Offset)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Errorf("not a receipt: %q is not a %s", typeErr.Field, typeErr.Type)
	}
	return errors.New("not a receipt")
}

// WriteJSON writes r as one line of JSON, the schema of
// docs/codewhale/contract.md §4 "Receipts" (`codewhale-ls log --json`,
// which the editors read).
func WriteJSON(w io.Writer, r approvals.Receipt) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
