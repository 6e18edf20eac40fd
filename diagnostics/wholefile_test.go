package diagnostics

import (
	"strings"
	"testing"
)

// TestWholeFilePlacement: CW005 sits on the first line no cause touches,
// so an editor that shows one message per line shows each cause on its
// own line; its message names the causes' lines, and "Ignore CW005 here"
// still silences it.
func TestWholeFilePlacement(t *testing.T) {
	for _, c := range []struct {
		name, src, line, lines string
	}{
		{"cause on the first line", "acton = \"deny\"\n[[rules]]\ntool = \"exec_shell\"\naction = \"Allow\"\n", "[[rules]]", "lines 1 and 4"},
		{"cause below a header", "# mine\n[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n", "# mine", "line 4"},
		{"every line a cause", "acton = \"deny\"", "", "line 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newLintWorld(t, "")
			r := w.check(map[string]string{w.permissions: c.src}, nil)
			whole := problemsWithCode(r, w.permissions, "CW005")
			if len(whole) != 1 {
				t.Fatalf("CW005 = %+v", whole)
			}
			p := whole[0]
			if got := spanText(c.src, p.Span); got != c.line {
				t.Errorf("CW005 on %q, want %q", got, c.line)
			}
			for _, rel := range p.Related {
				if len(c.line) > 0 && rel.Span.Start <= p.Span.End && p.Span.Start <= rel.Span.End {
					t.Errorf("CW005 %v touches its cause %v", p.Span, rel.Span)
				}
			}
			if !strings.Contains(p.Message, "because of "+c.lines+",") || strings.Contains(p.Message, "problem(s)") {
				t.Errorf("message %q, want it to name %s", p.Message, c.lines)
			}
			ignored := applyFix(c.src, IgnoreFix([]byte(c.src), p))
			r = w.check(map[string]string{w.permissions: ignored}, nil)
			if left := problemsWithCode(r, w.permissions, "CW005"); len(left) != 0 && c.line != "" {
				t.Errorf("after %q, CW005 is still reported: %+v", ignored, left)
			}
		})
	}
}
