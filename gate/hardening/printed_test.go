package hardening

import (
	"os/exec"
	"strings"
	"testing"
)

// printedBy agrees with real bash's echo and printf on what they print,
// escapes, formats and argument reuse included: what a line pipes into a
// shell or xargs is read from what bash would write.
func TestPrintedAgreesWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to check echo and printf against it")
	}
	cases := [][]string{
		{"echo", "git", "push"},
		{"echo", "-n", "git push"},
		{"echo", "-e", `\x67it push`},
		{"echo", "-ne", `g\151t\tpush\n`},
		{"echo", "-e", `git\c push`},
		{"echo", "-E", `\x67it`},
		{"echo", `\x67it`},
		{"echo", "-e", `\0147it \u0070ush`},
		{"echo", "-n", "-e", `a\nb`},
		{"echo", "-x", "y"},
		{"printf", `\x67it push`},
		{"printf", `%s\n`, "push"},
		{"printf", `%s %s\n`, "git", "push", "cargo", "publish"},
		{"printf", `%s`},
		{"printf", `%b`, `\x67it\tpush`},
		{"printf", `%b`, `git\c push`},
		{"printf", `%.3s push`, "gitxyz"},
		{"printf", `%5s|%-5s|`, "a", "b"},
		{"printf", `%d%%\n`, "42"},
		{"printf", `%c%c%c`, "git", "idea", "tree"},
		{"printf", `%q`, "a b'c"},
		{"printf", `\147\151\164 push`},
		{"printf", `\u0067it \U00000070ush`},
		{"printf", `a\\b\"c`},
		{"printf", `%x %o %X`, "255", "8", "255"},
		{"printf", "--", `%s`, "x"},
	}
	for _, words := range cases {
		want, err := exec.Command(bash, append([]string{"-c", `"$@"`, "bash"}, words...)...).Output()
		if err != nil {
			t.Fatalf("%q: bash: %v", words, err)
		}
		got, ok := printedBy(words, feed{}, nil)
		if !ok {
			t.Errorf("%q: not read, bash prints %q", words, want)
			continue
		}
		if got != string(want) {
			t.Errorf("%q: read %q, bash prints %q", words, got, want)
		}
	}
	// What cannot be read is said so, never guessed.
	for _, words := range [][]string{{"printf", "%*d", "3", "4"}, {"printf", "-v", "x", "y"}, {"cat", "file"}} {
		if got, ok := printedBy(words, feed{}, nil); ok {
			t.Errorf("%q: read as %q", strings.Join(words, " "), got)
		}
	}
}
