package shell

import (
	"slices"
	"testing"
)

// Commands gives each word also as the pattern the shell will expand:
// quoted specials escaped, parameters kept, a command substitution as
// PatternUnknown; the words themselves are Words'.
func TestCommandsPatterns(t *testing.T) {
	rows := []struct {
		command  string
		patterns [][]string
		heads    []int
	}{
		{`cat ~/.s*h/id_rsa "~/x*" 'a{b}' \*`, [][]string{{"cat", "~/.s*h/id_rsa", `\~/x\*`, `a\{b\}`, `\*`}}, []int{0}},
		{`cat ${HOME}/.ssh "$X/y" "a$(pwd)"`, [][]string{{"cat", "${HOME}/.ssh", "$X/y", "a" + PatternUnknown}, {"HOME"}, {"pwd"}}, []int{0, 0, 0}},
		{`bash -c 'cat ~/.s?h/k'`, [][]string{{"bash", "-c", `cat \~/.s\?h/k`}, {"cat", "~/.s?h/k"}}, []int{0, 0}},
		{`sudo grep -r x .`, [][]string{{"sudo", "grep", "-r", "x", "."}}, []int{1}},
	}
	for _, row := range rows {
		cmds := Commands(row.command)
		var got [][]string
		var heads []int
		for _, c := range cmds {
			got = append(got, c.Patterns)
			heads = append(heads, c.Head)
			if len(c.Words) != len(c.Patterns) {
				t.Errorf("%s: words %q and patterns %q do not line up", row.command, c.Words, c.Patterns)
			}
		}
		if !slices.EqualFunc(got, row.patterns, slices.Equal) || !slices.Equal(heads, row.heads) {
			t.Errorf("%s: patterns %q heads %v, want %q %v", row.command, got, heads, row.patterns, row.heads)
		}
	}
	if c := Commands(`bash -c 'cd x'`); len(c) != 2 || c[0].Depth != 0 || c[1].Depth != 1 {
		t.Errorf("depths: %+v", c)
	}
}
