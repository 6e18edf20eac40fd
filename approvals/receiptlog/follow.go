package receiptlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// follower reads the file at the log's path as it grows.
type follower struct {
	file  logFile
	lines *lineReader
	// counted counts the bytes taken from the file, to see it cut back.
	counted *countingReader
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func newFollower(lf logFile) *follower {
	counted := &countingReader{r: lf.file}
	return &follower{file: lf, lines: newLineReader(lf.name, counted), counted: counted}
}

// read hands fn every whole line appended since the last read. A file
// cut back under what was read (a writer removing what a full disk left
// of a line, or a person emptying the log) is read on from its new end.
func (fl *follower) read(l Log, f Filter, fn func(entry)) error {
	info, err := fl.file.file.Stat()
	if err != nil {
		return fmt.Errorf("cannot read the decision log %s: %w", fl.file.name, err)
	}
	if info.Size() < fl.counted.n {
		if _, err := fl.file.file.Seek(info.Size(), io.SeekStart); err != nil {
			return fmt.Errorf("cannot read the decision log %s: %w", fl.file.name, err)
		}
		fl.counted.n = info.Size()
		fl.lines.r.Reset(fl.counted)
		fl.lines.drop()
	}
	return readLines(l, fl.lines, f, fn)
}

// finish reads what is left of a file rotated away: no writer appends to
// it any more, so a last line without its end is a torn one.
func (fl *follower) finish(l Log, f Filter, fn func(entry)) error {
	if err := fl.read(l, f, fn); err != nil {
		return err
	}
	if line, skipped, ok := fl.lines.rest(); ok {
		l.take(line, skipped, fl.lines.position(), f, fn)
	}
	return nil
}

func (fl *follower) close() error { return fl.file.file.Close() }

// Follow calls fn with each receipt f selects as it is appended to the
// log after what Scan read, until ctx ends (nil then). When a writer
// rotates the log (the log renamed to .1, a new one started, as
// approvals.DecisionLog does under its lock), Follow reads the rest of
// the old file, any generation started since, then the new log: no
// receipt is lost or shown twice, unless more rotations than the log
// keeps generations happen between two looks. A log that does not exist
// yet is waited for. A log replaced by what is no regular file is an
// error naming it.
func (r *Reader) Follow(ctx context.Context, f Filter, fn func(approvals.Receipt)) error {
	if r.newest == nil && len(r.files) > 0 {
		if err := r.skipToEnd(); err != nil {
			return err
		}
	}
	poll := r.log.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	shown := r.log.shown(fn)
	for {
		if r.newest != nil {
			if err := r.newest.read(r.log, f, shown); err != nil {
				return err
			}
		}
		moved, err := r.followRotation(f, shown)
		if err != nil {
			return err
		}
		if moved {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// followRotation moves on to the file now at the log's path when it is
// no longer the one being read, first reading what the rotation left
// behind; moved reports that it did.
func (r *Reader) followRotation(f Filter, fn func(entry)) (moved bool, err error) {
	onDisk, err := os.Lstat(r.log.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Rotated away and not yet started again, or no log yet.
		return false, nil
	case err != nil:
		return false, fmt.Errorf("cannot read the decision log %s: %w", r.log.Path, err)
	case r.newest != nil && os.SameFile(onDisk, r.newest.file.info):
		return false, nil
	}
	// The new log and the generations rotated before it are opened
	// together under the writers' lock, so that none is half renamed.
	var (
		file    *os.File
		info    fs.FileInfo
		between []logFile
	)
	err = underWritersLock(r.log.Path, func() error {
		var err error
		if file, err = openLogFile(r.log.Path); err != nil {
			return err
		}
		if info, err = file.Stat(); err != nil {
			file.Close()
			return fmt.Errorf("cannot read the decision log %s: %w", r.log.Path, err)
		}
		var finished fs.FileInfo
		if r.newest != nil {
			finished = r.newest.file.info
		}
		if between, err = r.rotatedBetween(finished, info); err != nil {
			file.Close()
		}
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	next := newFollower(logFile{name: r.log.Path, file: file, info: info})
	if r.newest != nil {
		err = r.newest.finish(r.log, f, fn)
	}
	for _, lf := range between {
		fl := newFollower(lf)
		if err == nil {
			err = fl.finish(r.log, f, fn)
		}
		fl.close()
	}
	if err != nil {
		next.close()
		return false, err
	}
	r.replaceNewest(next)
	return true, nil
}

// rotatedBetween opens the rotated files newer than finished (every one
// when finished is nil: nothing was read yet) other than newest, and
// returns them oldest first. They are opened from .1 on, newest first,
// as openAll opens them, so that a writer rotating meanwhile moves a file
// to where it is still to be opened: none is missed, and one met twice is
// read once.
func (r *Reader) rotatedBetween(finished, newest fs.FileInfo) ([]logFile, error) {
	var newestFirst []logFile
	for g := 1; g <= maxGenerations; g++ {
		name := generation(r.log.Path, g)
		file, err := openLogFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		var info fs.FileInfo
		if err == nil {
			info, err = file.Stat()
			if err != nil {
				file.Close()
			}
		}
		if err != nil {
			for _, lf := range newestFirst {
				lf.file.Close()
			}
			return nil, err
		}
		if finished != nil && os.SameFile(info, finished) {
			file.Close()
			break
		}
		if os.SameFile(info, newest) || opened(newestFirst, info) {
			file.Close()
			continue
		}
		newestFirst = append(newestFirst, logFile{name: name, file: file, info: info})
	}
	slices.Reverse(newestFirst)
	return newestFirst, nil
}

// skipToEnd makes Follow start at the end of the snapshot without
// reading it (Scan was not called).
func (r *Reader) skipToEnd() error {
	last := r.files[len(r.files)-1]
	for _, lf := range r.files[:len(r.files)-1] {
		lf.file.Close()
	}
	r.files = nil
	fl := newFollower(last)
	end, err := last.file.Seek(0, io.SeekEnd)
	if err != nil {
		fl.close()
		return fmt.Errorf("cannot read the decision log %s: %w", last.name, err)
	}
	fl.counted.n = end
	r.newest = fl
	return nil
}

// replaceNewest makes fl the file followed, closing the one before.
func (r *Reader) replaceNewest(fl *follower) {
	if r.newest != nil {
		r.newest.close()
	}
	r.newest = fl
}
