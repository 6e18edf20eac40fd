package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Limits of what one frame may claim. A message larger than
// maxMessageBytes is refused, never allocated: a document of the size
// Codewhale reads is a few megabytes at most. A header line or block
// beyond its limit is not a header the client meant.
const (
	maxMessageBytes     = 64 << 20
	maxHeaderLineBytes  = 1 << 10
	maxHeaderBlockBytes = 8 << 10
	// retainedBodyBytes is the largest body buffer kept for the next
	// frame: one large didOpen must not pin its size for the session.
	retainedBodyBytes = 1 << 20
)

// contentLengthField is the header every LSP frame carries, lower-cased
// for comparison. It is recognised anywhere in a header line: a client
// that counts characters instead of bytes sends a Content-Length too
// small, and the tail of its body then runs into the next frame's header
// line ("}Content-Length: 56"). A frame whose header is broken is skipped
// by reading lines up to the next one holding the field; the body that
// followed the broken header is skipped with it.
const contentLengthField = "content-length:"

// errFrame is a frame that cannot be read as sent; the reader has skipped
// it and the next Read goes on with the next frame.
type errFrame struct {
	at     int64 // byte offset of the header line in the stream
	reason string
}

func (e *errFrame) Error() string {
	return fmt.Sprintf("byte %d: %s; skipped to the next Content-Length header", e.at, e.reason)
}

// frameReader reads LSP base-protocol frames (RFC 822-style headers with
// Content-Length, a blank line, the body) in bounded memory. jsonrpc2's
// own reader stops at a bad header with its body still in the stream,
// and never reads a frame again; this one resynchronises on the next
// Content-Length header, so one broken frame costs only itself.
type frameReader struct {
	in     *bufio.Reader
	offset int64 // bytes consumed so far
	body   []byte
	resync bool // the last header was broken: skip to the next Content-Length

	// The line being read: its first maxHeaderLineBytes, and what follows
	// its last "Content-Length:".
	text, value []byte
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{in: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the body of the next frame. The body is valid until the
// following call. A *errFrame means a frame was skipped; io.EOF means the
// stream ended between frames, io.ErrUnexpectedEOF inside one.
func (f *frameReader) next() ([]byte, error) {
	start := f.offset
	length, err := f.header(f.resync)
	f.resync = false
	if err != nil {
		var bad *errFrame
		if errors.As(err, &bad) {
			f.resync = true
		}
		if err == io.EOF && f.offset > start {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if cap(f.body) < length || cap(f.body) > retainedBodyBytes {
		f.body = make([]byte, length)
	}
	f.body = f.body[:length]
	n, err := io.ReadFull(f.in, f.body)
	f.offset += int64(n)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return f.body, nil
}

// headerLine is one line of a header block.
type headerLine struct {
	at      int64  // byte offset of the line in the stream
	size    int    // its length in bytes, line break included
	text    []byte // the line without its line break, when not tooLong
	tooLong bool   // longer than maxHeaderLineBytes
	// hasLength says the line holds "Content-Length:" (any case); length
	// is what follows its last occurrence.
	hasLength bool
	length    []byte
}

// header reads one header block and returns its Content-Length. With
// resync, the lines before the first one holding "Content-Length:" are
// skipped: they are what is left of a broken frame.
func (f *frameReader) header(resync bool) (int, error) {
	length, block, blockStart := -1, 0, f.offset
	for {
		l, err := f.line()
		if err != nil {
			return 0, err
		}
		if resync && !l.hasLength {
			continue
		}
		if l.hasLength {
			if resync || length < 0 {
				// A Content-Length line after garbage starts the frame.
				resync, block, blockStart = false, 0, l.at
			}
			if length, err = contentLength(l.at, l.length); err != nil {
				return 0, err
			}
			continue
		}
		block += l.size
		switch {
		case l.tooLong:
			return 0, &errFrame{l.at, fmt.Sprintf("header line longer than %d bytes", maxHeaderLineBytes)}
		case block > maxHeaderBlockBytes:
			return 0, &errFrame{l.at, fmt.Sprintf("header longer than %d bytes", maxHeaderBlockBytes)}
		case len(l.text) == 0:
			if length < 0 {
				return 0, &errFrame{blockStart, "header without Content-Length"}
			}
			return length, nil
		}
		name, v, ok := bytes.Cut(l.text, []byte(":"))
		if !ok {
			return 0, &errFrame{l.at, fmt.Sprintf("header line %.60q has no colon", l.text)}
		}
		// "Content-Length : 5"; Content-Type and unknown fields carry
		// nothing we use.
		if bytes.EqualFold(bytes.TrimSpace(name), []byte(contentLengthField[:len(contentLengthField)-1])) {
			if length, err = contentLength(l.at, v); err != nil {
				return 0, err
			}
		}
	}
}

// contentLength parses the value of a Content-Length field found at at.
func contentLength(at int64, value []byte) (int, error) {
	v := bytes.TrimSpace(value)
	n, err := strconv.ParseUint(string(v), 10, 63)
	switch {
	case len(value) > maxHeaderLineBytes:
		return 0, &errFrame{at, fmt.Sprintf("header line longer than %d bytes", maxHeaderLineBytes)}
	case err != nil && errors.Is(err, strconv.ErrRange), err == nil && n > maxMessageBytes:
		return 0, &errFrame{at, fmt.Sprintf("Content-Length %s is over the %d-byte limit", v, maxMessageBytes)}
	case err != nil || n == 0:
		return 0, &errFrame{at, fmt.Sprintf("Content-Length %q is not a positive number", v)}
	}
	return int(n), nil
}

// line reads one header line, of any length, in bounded memory: it keeps
// the first maxHeaderLineBytes and the text after the line's last
// "Content-Length:" (up to one byte more than maxHeaderLineBytes, which
// contentLength refuses).
func (f *frameReader) line() (headerLine, error) {
	l := headerLine{at: f.offset}
	f.text, f.value = f.text[:0], f.value[:0]
	matched, found := 0, false
	for {
		chunk, err := f.in.ReadSlice('\n')
		f.offset += int64(len(chunk))
		for rest := chunk; len(rest) > 0; {
			if matched == 0 && !found {
				i := indexC(rest) // skip quickly to where the field could begin
				if i < 0 {
					break
				}
				rest = rest[i:]
			}
			c := rest[0]
			rest = rest[1:]
			if found && len(f.value) <= maxHeaderLineBytes {
				f.value = append(f.value, c)
			}
			switch lower(c) {
			case contentLengthField[matched]:
				matched++
			case contentLengthField[0]: // 'c' occurs once in the field: restart there
				matched = 1
			default:
				matched = 0
			}
			if matched == len(contentLengthField) {
				found, matched, f.value = true, 0, f.value[:0]
			}
		}
		if !l.tooLong && len(f.text)+len(chunk) <= maxHeaderLineBytes {
			f.text = append(f.text, chunk...)
		} else {
			l.tooLong = true
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && f.offset == l.at {
			return l, io.EOF
		}
		if err == io.EOF {
			return l, io.ErrUnexpectedEOF
		}
		return l, err
	}
	l.size = int(f.offset - l.at)
	if !l.tooLong {
		l.text = bytes.TrimRight(f.text, "\r\n")
	}
	if found {
		l.hasLength, l.length = true, bytes.TrimRight(f.value, "\r\n")
	}
	return l, nil
}

// indexC is the index of the first 'c' or 'C' in b, or -1.
func indexC(b []byte) int {
	i, j := bytes.IndexByte(b, 'c'), bytes.IndexByte(b, 'C')
	switch {
	case i < 0:
		return j
	case j < 0 || i < j:
		return i
	}
	return j
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
