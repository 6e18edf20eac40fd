package assist

import (
	"bytes"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// spot is what the cursor is on: a key, or the value of a key. Paths name
// keys from the document root; an array element adds no segment, since the
// schema describes all elements alike.
type spot struct {
	path    []string
	onValue bool
	value   string // the decoded value, when onValue
	span    problem.Span
}

// within reports whether the cursor at off touches span; a cursor just
// past the last character still counts, as editors place it there.
func within(span problem.Span, off int) bool { return span.Start <= off && off <= span.End }

func extend(path []string, keys ...string) []string {
	return append(append([]string(nil), path...), keys...)
}

// lineBounds is the start of the line holding off and the end of its text.
func lineBounds(src []byte, off int) (start, end int) {
	off = min(max(off, 0), len(src))
	start = bytes.LastIndexByte(src[:off], '\n') + 1
	end = len(src)
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		end = off + i
	}
	return start, end
}
