package receiptlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line read as a receipt. A receipt keeps at
// most 4 KiB of each input field, so real lines are a few KiB; a longer
// line is reported and skipped, never held whole in memory.
const MaxLineBytes = 1 << 20

// Skipped is a line of the log that is not shown, and why.
type Skipped struct {
	File string
	// Line is the line's number in File, from 1.
	Line int
	Why  string
}

func (s Skipped) String() string {
	return fmt.Sprintf("%s:%d: skipped: %s", s.File, s.Line, s.Why)
}

// lineReader reads one file of the log line by line, each at most
// MaxLineBytes, and remembers a last line not yet ended by "\n" (a line
// being written) so that reading again after the file grew goes on from
// its start.
type lineReader struct {
	name string
	r    *bufio.Reader
	// line is the number of the last line returned.
	line int
	// partial is the start of a line whose end has not been read yet;
	// over is how many bytes of it were dropped past MaxLineBytes.
	partial []byte
	over    int
}

func newLineReader(name string, r io.Reader) *lineReader {
	return &lineReader{name: name, r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next whole line without its "\n", or a Skipped for a
// line too long to read; io.EOF when no whole line is left for now.
func (lr *lineReader) next() (line []byte, skipped *Skipped, err error) {
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(chunk) > 0 {
			lr.add(chunk)
		}
		switch {
		case err == nil:
			return lr.end()
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, nil, err
		}
	}
}

// add appends chunk to the line being read, keeping at most
// MaxLineBytes+1 of it.
func (lr *lineReader) add(chunk []byte) {
	room := MaxLineBytes + 1 - len(lr.partial)
	if room > len(chunk) {
		room = len(chunk)
	}
	if room > 0 {
		lr.partial = append(lr.partial, chunk[:room]...)
	}
	lr.over += len(chunk) - max(room, 0)
}

// end returns the line just completed (partial ends with "\n").
func (lr *lineReader) end() ([]byte, *Skipped, error) {
	lr.line++
	line, over := lr.partial, lr.over
	lr.partial, lr.over = nil, 0
	if over > 0 {
		return nil, &Skipped{File: lr.name, Line: lr.line, Why: tooLong(len(line) + over - 1)}, nil
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil, nil
}

// position names the last line returned.
func (lr *lineReader) position() position { return position{file: lr.name, line: lr.line} }

// rest is what is left of a file read to its end without a final "\n":
// a line torn by a writer that stopped (a full disk's is cut off again by
// the writer, so this is rare). It is returned as a line of its own.
func (lr *lineReader) rest() ([]byte, *Skipped, bool) {
	if len(lr.partial) == 0 && lr.over == 0 {
		return nil, nil, false
	}
	if len(lr.partial) > MaxLineBytes {
		lr.over += len(lr.partial) - MaxLineBytes
		lr.partial = lr.partial[:MaxLineBytes]
	}
	lr.partial = append(lr.partial, '\n')
	line, skipped, _ := lr.end()
	return line, skipped, true
}

// drop forgets the line being read: the file was cut back under it.
func (lr *lineReader) drop() {
	lr.partial, lr.over = nil, 0
}
