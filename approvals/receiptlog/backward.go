package receiptlog

import (
	"bytes"
	"fmt"
	"io"
)

// backwardBlock is how much of a file backwardLines reads at a time.
const backwardBlock = 64 << 10

// backwardLines reads the whole lines of a file from its end, newest
// first, each at most MaxLineBytes: `codewhale-ls log` shows the last
// receipts, and reading a full log (40 MiB) from its start to show fifty
// would take the better part of a second.
type backwardLines struct {
	name string
	r    io.ReaderAt
	// tail holds the bytes from offset start on not yet returned: whole
	// lines, each ending in "\n", the first perhaps cut at its start.
	start int64
	tail  []byte
}

// newBackwardLines reads r's lines before end. A last line without its
// "\n" (torn when its writer stopped) counts as a line when torn is set;
// end is then the file's size.
func newBackwardLines(name string, r io.ReaderAt, end int64, torn bool) *backwardLines {
	b := &backwardLines{name: name, r: r, start: end}
	if torn {
		b.tail = []byte{'\n'} // as if the line had its end
	}
	return b
}

// next returns the line before those returned, without its "\n", and
// where it starts; a line longer than MaxLineBytes is a Skipped instead;
// io.EOF at the start of the file.
func (b *backwardLines) next() (line []byte, skipped *Skipped, at int64, err error) {
	for {
		if len(b.tail) > 0 {
			body := b.tail[:len(b.tail)-1]
			if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
				b.tail = b.tail[:i+1]
				at := b.start + int64(i+1)
				if line := body[i+1:]; len(line) <= MaxLineBytes {
					return line, nil, at, nil
				}
				return nil, &Skipped{File: b.name, Why: tooLong(len(body) - i - 1)}, at, nil
			}
			if b.start == 0 {
				b.tail = nil
				return body, nil, 0, nil
			}
			if len(body) > MaxLineBytes {
				return b.skipLong(len(body))
			}
		} else if b.start == 0 {
			return nil, nil, 0, io.EOF
		}
		if err := b.readBlock(); err != nil {
			return nil, nil, 0, err
		}
	}
}

// readBlock puts the block before start in front of tail.
func (b *backwardLines) readBlock() error {
	size := min(int64(backwardBlock), b.start)
	buf := make([]byte, int(size)+len(b.tail))
	if _, err := b.r.ReadAt(buf[:size], b.start-size); err != nil {
		return fmt.Errorf("cannot read the decision log %s: %w", b.name, err)
	}
	copy(buf[size:], b.tail)
	b.tail, b.start = buf, b.start-size
	return nil
}

// skipLong passes over a line longer than MaxLineBytes whose last kept
// bytes, n of them, are tail, reading on to its start without keeping it.
func (b *backwardLines) skipLong(n int) ([]byte, *Skipped, int64, error) {
	end := b.start + int64(n)
	b.tail = nil
	for b.start > 0 {
		size := min(int64(backwardBlock), b.start)
		buf := make([]byte, size)
		if _, err := b.r.ReadAt(buf, b.start-size); err != nil {
			return nil, nil, 0, fmt.Errorf("cannot read the decision log %s: %w", b.name, err)
		}
		b.start -= size
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			b.tail = buf[:i+1]
			break
		}
	}
	at := b.start + int64(len(b.tail))
	return nil, &Skipped{File: b.name, Why: tooLong(int(end - at))}, at, nil
}

// tooLong says why a line of n bytes is skipped.
func tooLong(n int) string {
	return fmt.Sprintf("a line of %d bytes, longer than the %d a receipt can take", n, MaxLineBytes)
}

// completeEnd is where the last whole line of r (size bytes) ends: a
// line still being written at its end is left for Follow. A last line
// of more than MaxLineBytes without its end counts as ended (torn).
func completeEnd(name string, r io.ReaderAt, size int64) (end int64, torn bool, err error) {
	for end = size; end > 0 && size-end <= MaxLineBytes; {
		n := min(int64(backwardBlock), end)
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, end-n); err != nil {
			return 0, false, fmt.Errorf("cannot read the decision log %s: %w", name, err)
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return end - n + int64(i) + 1, false, nil
		}
		end -= n
	}
	if size > MaxLineBytes {
		return size, true, nil
	}
	return 0, false, nil
}

// lineNumber is the number of the line starting at offset at of r, for
// a report: read only when a line is skipped.
func lineNumber(r io.ReaderAt, at int64) int {
	line := 1
	buf := make([]byte, backwardBlock)
	for off := int64(0); off < at; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), at-off)], off)
		line += bytes.Count(buf[:n], []byte{'\n'})
		off += int64(n)
		if err != nil || n == 0 {
			break
		}
	}
	return line
}
