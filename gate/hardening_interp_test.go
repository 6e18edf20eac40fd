package gate

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// TestHardeningHoldsInterpreterCode: every hostile interpreter line of
// gate/hardening/testdata/interp/held.txt that starts `git push` or
// `cargo publish`, or runs code nobody can read, is held under Full
// Access with the deny rules of the bypass corpus, at every release
// (issue 23, point 5).
func TestHardeningHoldsInterpreterCode(t *testing.T) {
	f, err := os.Open("hardening/testdata/interp/held.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	want := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case strings.HasPrefix(text, "=> ") && len(lines) > 0:
			last := lines[len(lines)-1]
			want[last] = append(want[last], strings.TrimPrefix(text, "=> "))
		default:
			lines = append(lines, strings.ReplaceAll(text, `\n`, "\n"))
		}
	}
	held := 0
	for _, version := range hardeningReleases {
		fx := load(t, files{permissions: hardeningRules, git: true, release: version}).noFatal(t)
		for _, line := range lines {
			denied := false
			for _, w := range want[line] {
				denied = denied || w == "git push" || w == "cargo publish" || w == "unseeable"
			}
			if !denied {
				continue // a command no rule of the corpus denies
			}
			req := withPosture(fx.call("exec_shell", map[string]any{"command": line}), session.FullAccess)
			if d := fx.decide(t, req, Deps{}); d.Decision == Allow {
				t.Errorf("%s: %q is allowed: %s", version, short(line), d.Reason)
			}
			held++
		}
	}
	t.Logf("%d interpreter lines held across %d releases", held/len(hardeningReleases), len(hardeningReleases))
}
