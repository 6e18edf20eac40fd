package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readAll reads frames to the end: the bodies, and the reasons of the
// frames skipped.
func readAll(t *testing.T, in io.Reader) (bodies, skipped []string) {
	t.Helper()
	f := newFrameReader(in)
	for {
		body, err := f.next()
		var bad *errFrame
		switch {
		case errors.As(err, &bad):
			skipped = append(skipped, bad.Error())
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return bodies, skipped
		case err != nil:
			t.Fatal(err)
		default:
			bodies = append(bodies, string(body))
		}
	}
}

// TestFrameRecovery: after a frame with a broken header, the next frame
// is read; its body is not taken for a header.
func TestFrameRecovery(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	body := `{"jsonrpc":"2.0","method":"y","params":{"a":1}}`
	for _, c := range []struct {
		name, broken, reason string
	}{
		{"negative", "Content-Length: -5\r\n\r\n" + body, `Content-Length "-5" is not a positive number`},
		{"not a number", "Content-Length: abc\r\n\r\n" + body, `Content-Length "abc"`},
		{"zero", "Content-Length: 0\r\n\r\n" + body, `Content-Length "0"`},
		{"2^40", "Content-Length: 1099511627776\r\n\r\n" + body, "Content-Length 1099511627776 is over the 67108864-byte limit"},
		{"beyond uint64", "Content-Length: 99999999999999999999999\r\n\r\n" + body, "is over the"},
		{"no length", "Content-Type: x\r\n\r\n" + body, "header without Content-Length"},
		{"no colon", "Content-Length 12\r\n\r\n" + body, "has no colon"},
		{"long line", strings.Repeat("X", 100<<10) + "\r\n\r\n" + body, "header line longer than 1024 bytes"},
		{"lowercase name, then garbage", "content-length: 1x\r\n\r\n" + body, `Content-Length "1x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			bodies, skipped := readAll(t, strings.NewReader(frame(good)+c.broken+frame(good)+frame(good)))
			if len(bodies) != 3 || bodies[0] != good || bodies[1] != good || bodies[2] != good {
				t.Errorf("bodies %q, want the good frame three times", bodies)
			}
			if len(skipped) != 1 || !strings.Contains(skipped[0], c.reason) {
				t.Errorf("skipped %q, want one saying %q", skipped, c.reason)
			}
			if len(skipped) == 1 && !strings.Contains(skipped[0], fmt.Sprintf("byte %d:", len(frame(good)))) {
				t.Errorf("%q does not name the byte where the broken frame starts (%d)", skipped[0], len(frame(good)))
			}
		})
	}
}

// TestShortContentLengthCostsOnlyItsFrame: a client that counts
// characters instead of bytes sends a Content-Length too small; the tail
// of its body runs into the next header line. Before, that line was read
// as an unknown field and the next frame was skipped too.
func TestShortContentLengthCostsOnlyItsFrame(t *testing.T) {
	short := `{"jsonrpc":"2.0","method":"x","params":"é"}`
	good := `{"jsonrpc":"2.0","id":1,"method":"y"}`
	for _, sep := range []string{"", "\r\n", "\n\n", "a: b\r\n"} {
		in := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", utf8.RuneCountInString(short), short) + sep + frame(good) + frame(good)
		bodies, _ := readAll(t, strings.NewReader(in))
		if len(bodies) != 3 || bodies[1] != good || bodies[2] != good {
			t.Errorf("with %q between: bodies %q, want the short frame's first bytes and the good frame twice", sep, bodies)
		}
	}
}

// TestFrameHeaderFields: other fields, any case and spacing, a bare \n.
func TestFrameHeaderFields(t *testing.T) {
	in := "content-length:2\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n{}" +
		"Content-Type: x\r\nCONTENT-LENGTH:   3  \r\n\r\n[1]"
	bodies, skipped := readAll(t, strings.NewReader(in))
	if len(bodies) != 2 || bodies[0] != "{}" || bodies[1] != "[1]" || len(skipped) != 0 {
		t.Errorf("bodies %q, skipped %q", bodies, skipped)
	}
}

// endless is a header line that never ends.
type endless struct{ left int }

func (e *endless) Read(p []byte) (int, error) {
	if e.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), e.left)
	for i := range p[:n] {
		p[i] = 'a'
	}
	e.left -= n
	return n, nil
}

// TestEndlessHeaderLineIsBounded: 256 MiB without a newline is read in
// the reader's buffer, not accumulated.
func TestEndlessHeaderLineIsBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	bodies, _ := readAll(t, &endless{left: 256 << 20})
	runtime.ReadMemStats(&after)
	if len(bodies) != 0 {
		t.Errorf("bodies %d", len(bodies))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("reading one endless header line allocated %d bytes", grew)
	}
}

// FuzzFrameReader: any byte stream is read to its end without a panic,
// and every well-formed frame after garbage (line breaks, partial bodies,
// header lines) that does not itself hold "Content-Length" is read, at
// the start of the stream or after a broken header.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("Content-Length: -1\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}Content-Length: x\r\n"))
	f.Add([]byte("content-length:3\n\n[1]"))
	f.Add([]byte(`"params":"é"}`))
	f.Add([]byte("a: b\r\n\r\n{\"x\":\n1}"))
	f.Add([]byte("Content-Type: x\r\n"))
	f.Fuzz(func(t *testing.T, garbage []byte) {
		readAll(t, bytes.NewReader(garbage))
		if bytes.Contains(bytes.ToLower(garbage), []byte("content-length")) {
			return
		}
		good := `{"jsonrpc":"2.0","method":"x"}`
		for _, prefix := range []string{"", "Content-Length: nope\r\n\r\n"} {
			bodies, _ := readAll(t, strings.NewReader(prefix+string(garbage)+frame(good)+frame(good)))
			if len(bodies) != 2 || bodies[0] != good || bodies[1] != good {
				t.Fatalf("after %q%q: bodies %q", prefix, garbage, bodies)
			}
		}
	})
}

// BenchmarkFrameReader reads small frames as an editor sends them.
func BenchmarkFrameReader(b *testing.B) {
	one := frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a","version":1},"contentChanges":[{"text":"x"}]}}`)
	stream := []byte(strings.Repeat(one, 1000))
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		f := newFrameReader(bytes.NewReader(stream))
		for {
			if _, err := f.next(); err != nil {
				break
			}
		}
	}
}
