package rpc

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
// for comparison. A frame whose header is broken is skipped by scanning
// for the next "Content-Length:": the body that followed the broken
// header is then skipped with it.
const contentLengthField = "content-length"

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
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{in: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the body of the next frame. The body is valid until the
// following call. A *errFrame means a frame was skipped; io.EOF means the
// stream ended between frames, io.ErrUnexpectedEOF inside one.
func (f *frameReader) next() ([]byte, error) {
	nameRead := f.resync
	if f.resync {
		if err := f.skipToContentLength(); err != nil {
			return nil, err
		}
		f.resync = false
	}
	start := f.offset
	length, err := f.header(nameRead)
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

// header reads one header block and returns its Content-Length. nameRead
// says that the block's first line has been read up to the colon after
// "Content-Length".
func (f *frameReader) header(nameRead bool) (int, error) {
	length, block, blockStart := -1, 0, f.offset
	for first := true; ; first = false {
		at := f.offset
		line, err := f.line()
		if err != nil {
			return 0, err
		}
		if block += len(line); block > maxHeaderBlockBytes {
			return 0, &errFrame{at, fmt.Sprintf("header longer than %d bytes", maxHeaderBlockBytes)}
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 && (!first || !nameRead) {
			if length < 0 {
				return 0, &errFrame{blockStart, "header without Content-Length"}
			}
			return length, nil
		}
		value := line
		if !first || !nameRead {
			name, v, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				return 0, &errFrame{at, fmt.Sprintf("header line %.60q has no colon", line)}
			}
			if !bytes.EqualFold(bytes.TrimSpace(name), []byte(contentLengthField)) {
				continue // Content-Type and unknown fields carry nothing we use
			}
			value = v
		}
		v := bytes.TrimSpace(value)
		n, err := strconv.ParseUint(string(v), 10, 63)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange), err == nil && n > maxMessageBytes:
			return 0, &errFrame{at, fmt.Sprintf("Content-Length %s is over the %d-byte limit", v, maxMessageBytes)}
		case err != nil || n == 0:
			return 0, &errFrame{at, fmt.Sprintf("Content-Length %q is not a positive number", v)}
		}
		length = int(n)
	}
}

// line reads one header line of at most maxHeaderLineBytes, '\n' included.
// A longer line is consumed whole (in bounded memory) and reported.
func (f *frameReader) line() ([]byte, error) {
	line, err := f.in.ReadSlice('\n')
	f.offset += int64(len(line))
	if err == nil && len(line) <= maxHeaderLineBytes {
		return line, nil
	}
	at := f.offset - int64(len(line))
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = f.in.ReadSlice('\n')
		f.offset += int64(len(line))
	}
	if err != nil {
		if err == io.EOF && f.offset == at {
			return nil, io.EOF
		}
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return nil, &errFrame{at, fmt.Sprintf("header line longer than %d bytes", maxHeaderLineBytes)}
}

// skipToContentLength discards bytes up to and including the next
// "Content-Length:" (any case); the rest of that line is its value. The
// body of the broken frame is skipped with it; a body that itself
// contains the text costs one more skipped frame.
func (f *frameReader) skipToContentLength() error {
	const name = contentLengthField + ":"
	matched := 0
	for {
		c, err := f.in.ReadByte()
		if err != nil {
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		f.offset++
		switch lower(c) {
		case name[matched]:
			matched++
		case name[0]: // 'c' occurs once in the name: restart there
			matched = 1
		default:
			matched = 0
		}
		if matched == len(name) {
			return nil
		}
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
