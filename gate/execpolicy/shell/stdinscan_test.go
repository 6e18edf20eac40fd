package shell

import (
	"strings"
	"testing"
)

// stdinScanCases are texts whose newlines the one-pass stdinScan must
// judge as shellReadsStdin judges each prefix: steps spanning a newline
// (quotes, substitutions, backquotes, continuations), shells early, late,
// wrapped, grouped and half-written.
var stdinScanCases = []string{
	"cat <<E\nx\nE\nbash <<F\necho hi\nF\n",
	"bash <<E\nx\nE\ncat <<F\ny\nF\n",
	"env FOO=1 sh <<E\nrm -rf /\nE\n",
	"{ bash; } <<E\nx\nE\n",
	"cat <<E 'ba\nsh' <<F\nx\nE\ny\nF\n",
	"echo \"$(\nbash\n)\" <<E\nx\nE\n",
	"echo `\nbash\n` <<E\nx\nE\n",
	"cat <(\nsh\n) <<E\nx\nE\n",
	"ba\\\nsh <<E\nx\nE\n",
	"sudo \\\nbash <<E\nx\nE\n",
	"# it's a comment\ncat <<E\nx\nE\nsh <<F\ny\nF\n",
	"echo $'a\nb' ; source <<E\nx\nE\n",
	"( . <<E\nx\nE\n)",
	"cat <<E; bash\nx\nE\n",
	"'bash' <<E\nx\nE\n",
	"\"/bin/sh\" -s <<E\nx\nE\n",
	"x=1 y=2 <<E zsh\nx\nE\n",
	"echo ${a\nb} <<E\nbash\nE\n",
	"echo \"unterminated\nbash <<E\nx\nE\n",
	"echo 'unterminated\nbash <<E\nx\nE\n",
	"echo $(unterminated\nbash <<E\nx\nE\n",
	"echo `unterminated\nbash <<E\nx\nE\n",
	"echo \\",
	"{\nbash\n} <<E\nx\nE\n",
	"cat <<E\n$(bash)\nE\n",
	"\n\n\nsh\n\n",
	"echo a$\n(bash)\n",
	"echo <\n(bash)\n",
}

// TestStdinScanIsShellReadsStdin: the one-pass answer at every newline
// (and at the end) is shellReadsStdin's of the prefix.
func TestStdinScanIsShellReadsStdin(t *testing.T) {
	for _, text := range stdinScanCases {
		checkStdinScan(t, text)
	}
}

func checkStdinScan(t *testing.T, text string) {
	t.Helper()
	s := newStdinScan(text)
	for b := 0; b <= len(text); b++ {
		if b != len(text) && (b == 0 || text[b-1] != '\n') {
			continue
		}
		if got, want := s.shellReadsBefore(b), shellReadsStdin(text[:b]); got != want {
			t.Fatalf("%q before byte %d: one pass says %v, the prefix %v", text, b, got, want)
		}
	}
}

func FuzzStdinScan(f *testing.F) {
	for _, text := range stdinScanCases {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if strings.Count(text, "\n") > 200 {
			return
		}
		checkStdinScan(t, text)
	})
}
