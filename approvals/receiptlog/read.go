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
	log Log
	// names are the files of the snapshot, oldest first.
	names []string
	// files are those not yet read; Scan closes each once read.
	files []logFile
	// newest reads the newest file; Follow goes on reading it.
	newest *follower
}

// Open opens the log and its generations for reading. A log that does
// not exist yet is an empty Reader (Files is empty), not an error; a log
// that is not a regular file, or a symlink, is an error naming it.
func (l Log) Open() (*Reader, error) {
	files, err := openAll(l.Path)
	if errors.Is(err, errNoLog) {
		return &Reader{log: l}, nil
	}
	if err != nil {
		return nil, err
	}
	r := &Reader{log: l, files: files}
	for _, f := range files {
		r.names = append(r.names, f.name)
	}
	return r, nil
}

// Files names the files of the Reader's snapshot, oldest first: the log
// last, unless it was rotated away and not yet started again.
func (r *Reader) Files() []string { return slices.Clone(r.names) }

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
	for len(r.files) > 0 {
		lf := r.files[0]
		if len(r.files) == 1 {
			r.newest, r.files = newFollower(lf), nil
			return r.newest.read(r.log, f, fn)
		}
		r.files = r.files[1:]
		lines := newLineReader(lf.name, lf.file)
		err := readLines(r.log, lines, f, fn)
		if line, skipped, ok := lines.rest(); ok && err == nil {
			r.log.take(line, skipped, lines.position(), f, fn)
		}
		lf.file.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Last returns the last n receipts f selects, oldest first, and whether
// older ones it selects were left out; every one when n <= 0. It reads
// the files from their ends, so that the last few of a full log cost
// what they are, not what the log is. Follow then goes on after the
// newest file's last whole line.
func (r *Reader) Last(f Filter, n int) ([]approvals.Receipt, bool, error) {
	var kept []entry
	if n <= 0 {
		err := r.scan(f, func(e entry) { kept = append(kept, e) })
		return r.log.receipts(kept), false, err
	}
	files := r.files
	r.files = nil
	defer func() {
		for _, lf := range files {
			lf.file.Close()
		}
	}()
	more := false
	newest := len(files) - 1
	for i := newest; i >= 0 && !more; i-- {
		lf := files[i]
		lines, err := r.fromEnd(lf, i == newest)
		if err != nil {
			return nil, false, err
		}
		if i == newest {
			files = files[:i] // followed, not closed
		}
		for !more {
			line, skipped, at, err := lines.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, false, err
			}
			r.log.take(line, skipped, position{file: lf.name, r: lf.file, offset: at}, f, func(e entry) {
				if len(kept) == n {
					more = true
					return
				}
				e.line = bytes.Clone(e.line) // not the block read
				kept = append(kept, e)
			})
		}
	}
	slices.Reverse(kept)
	return r.log.receipts(kept), more, nil
}

// fromEnd reads lf's lines from its end. The newest file is read from
// its last whole line, a line still being written left to Follow, which
// goes on from there; in an older one, a last line without its end was
// torn and is read as a line.
func (r *Reader) fromEnd(lf logFile, newest bool) (*backwardLines, error) {
	info, err := lf.file.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read the decision log %s: %w", lf.name, err)
	}
	end, torn := info.Size(), false
	if newest {
		if end, torn, err = completeEnd(lf.name, lf.file, info.Size()); err != nil {
			return nil, err
		}
		fl := newFollower(lf)
		if _, err := lf.file.Seek(end, io.SeekStart); err != nil {
			return nil, fmt.Errorf("cannot read the decision log %s: %w", lf.name, err)
		}
		fl.counted.n = end
		r.newest = fl
	} else if end > 0 {
		last := make([]byte, 1)
		if _, err := lf.file.ReadAt(last, end-1); err != nil {
			return nil, fmt.Errorf("cannot read the decision log %s: %w", lf.name, err)
		}
		torn = last[0] != '\n'
	}
	return newBackwardLines(lf.name, lf.file, end, torn), nil
}

// receipts decodes entries whole, masked again, dropping those that are
// no receipt after all (told to l.Skip).
func (l Log) receipts(entries []entry) []approvals.Receipt {
	out := make([]approvals.Receipt, 0, len(entries))
	keep := l.shown(func(rc approvals.Receipt) { out = append(out, rc) })
	for _, e := range entries {
		keep(e)
	}
	return out
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
		l.take(line, skipped, lines.position(), f, fn)
	}
}

// entry is a line of the log whose header a filter selected.
type entry struct {
	line []byte
	// at names the line, should it be no receipt after all.
	at position
}

// position names a line of the log for a report: its file and number,
// the number counted only when a report needs it (a line read from the
// end of its file) from offset, where it starts in r.
type position struct {
	file   string
	line   int
	r      io.ReaderAt
	offset int64
}

// skipped reports the line at p as skipped for why.
func (p position) skipped(why string) Skipped {
	line := p.line
	if line == 0 && p.r != nil {
		line = lineNumber(p.r, p.offset)
	}
	return Skipped{File: p.file, Line: line, Why: why}
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

// take hands fn the entry of one line at pos when f selects it; a line
// that is no receipt, or was too long to read (skipped), goes to l.Skip.
func (l Log) take(line []byte, skipped *Skipped, pos position, f Filter, fn func(entry)) {
	why := ""
	if skipped != nil {
		why = skipped.Why
	} else {
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
				fn(entry{line: line, at: pos})
			}
			return
		}
		why = err.Error()
	}
	if l.Skip != nil {
		l.Skip(pos.skipped(why))
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
		if l.Skip != nil {
			l.Skip(e.at.skipped(err.Error()))
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
