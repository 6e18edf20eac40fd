package diagnostics

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// placeWholeFile moves each CW005 of f to the first line no cause of it
// touches. On a cause's line it would compete with the cause: editors that
// show one message per line (Neovim's virtual text shows the last) would
// show the general verdict and hide the specific cause.
func placeWholeFile(f *FileResult) {
	for i, p := range f.Problems {
		if p.Code != problem.FileRejected || len(p.Related) == 0 {
			continue
		}
		var causes []problem.Span
		for _, r := range p.Related {
			if r.File == "" || r.File == f.Path {
				causes = append(causes, r.Span)
			}
		}
		f.Problems[i].Span = lineAwayFrom(f.Src, causes)
	}
}

// lineAwayFrom is the text of the first line of src that touches none of
// the spans (a span touches the lines from its start to its end), or the
// empty span at the start when every line does. Ignore comments are
// skipped: "Ignore CW005 here" puts one above the line chosen, and the
// same line must be chosen again for the comment to apply.
func lineAwayFrom(src []byte, spans []problem.Span) problem.Span {
	for start := 0; start <= len(src); {
		end := len(src)
		if nl := bytes.IndexByte(src[start:], '\n'); nl >= 0 {
			end = start + nl
		}
		touched := strings.HasPrefix(strings.TrimSpace(string(src[start:end])), IgnoreMarker)
		for _, s := range spans {
			if s.Start <= end && start <= max(s.End, s.Start) {
				touched = true
				break
			}
		}
		if !touched {
			return problem.Span{Start: start, End: start + len(bytes.TrimRight(src[start:end], "\r"))}
		}
		start = end + 1
	}
	return problem.Span{}
}

// causeLines names the 1-based lines of the causes, for a message that
// points at them: "line 4", "lines 4 and 7", "lines 4, 7 and 9".
func causeLines(src []byte, causes []problem.Related) string {
	lines := problem.NewLines(src)
	var names []string
	seen := map[int]bool{}
	for _, c := range causes {
		n := lines.LineOf(c.Span.Start) + 1
		if !seen[n] {
			seen[n] = true
			names = append(names, fmt.Sprint(n))
		}
	}
	switch len(names) {
	case 1:
		return "line " + names[0]
	}
	return "lines " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
