package problem

import "testing"

func TestNearest(t *testing.T) {
	keys := []string{"tool", "command", "command_exact", "path", "workspace", "action"}
	for word, want := range map[string]string{"acton": "action", "commands": "command", "tol": "tool", "zzzzzzzz": "", "workspce": "workspace",
		"Tool": "tool", "commandexact": "command_exact", "decision": "", "glob": ""} {
		if got := Nearest(word, keys); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestLinesUTF16(t *testing.T) {
	l := NewLines([]byte("a = 1\nm = \"🐳日本\"\n"))
	off := len("a = 1\nm = \"🐳")
	if line, col := l.UTF16(off); line != 1 || col != 7 {
		t.Errorf("got %d:%d", line, col)
	}
	if got := l.Offset(1, 7); got != off {
		t.Errorf("Offset = %d want %d", got, off)
	}
}

func TestLinesIndent(t *testing.T) {
	l := NewLines([]byte("a\n\t  b c\n  \n"))
	for _, tc := range []struct {
		off  int
		want string
	}{{0, ""}, {5, "\t  "}, {7, "\t  "}, {3, "\t"}, {11, "  "}, {99, ""}} {
		if got := l.Indent(tc.off); got != tc.want {
			t.Errorf("Indent(%d) = %q, want %q", tc.off, got, tc.want)
		}
	}
}
