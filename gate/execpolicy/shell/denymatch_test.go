package shell

import (
	"slices"
	"testing"
)

var (
	dialect0100 = Dialect{Wildcard: true}
	dialect0101 = Dialect{Wildcard: true, OptionsAnywhere: true, LiteralLeading: true, PythonModule: true}
	windows0101 = Dialect{Wildcard: true, OptionsAnywhere: true, LiteralLeading: true, PythonModule: true, WindowsBuild: true}
)

// docs/codewhale/releases/0.10.0.md A.3.4 and 0.10.1.md N4, per dialect:
// 0.9.10, 0.10.0, 0.10.1 on Linux, 0.10.1 on Windows.
func TestDialectDenyMatch(t *testing.T) {
	dialects := []Dialect{{}, dialect0100, dialect0101, windows0101}
	cases := []struct {
		rule, target string
		want         [4]bool
	}{
		{"dd * of=/dev/sda", "dd if=/dev/zero bs=1m of=/dev/sda", [4]bool{false, true, true, true}},
		{"dd * of=/dev/sda", "dd * of=/dev/sda", [4]bool{true, true, true, true}},
		{"rm -rf *", "rm -rf", [4]bool{false, true, true, true}},
		{"* rm -rf /", "rm -rf /", [4]bool{false, true, true, true}},
		{"* rm -rf /", "/bin/rm -rf /", [4]bool{false, false, false, false}},
		{"*", "ls", [4]bool{false, true, true, true}},
		{"* * * * x", "a b c d e f g h", [4]bool{false, false, false, false}},
		{"git * push", "git pushd", [4]bool{false, false, false, false}},
		{"grep * /home/z", "grep x /etc/y", [4]bool{false, false, false, false}},
		{"git push --force", "git push origin main --force", [4]bool{false, false, true, true}},
		{"git push --force", "git push --force-with-lease", [4]bool{false, false, false, false}},
		{"rm -rf /", "rm x -rf /", [4]bool{false, false, true, true}},
		{"rm -rf /", "rm / -rf", [4]bool{false, false, false, false}},
		{"rm file", "rm /q file", [4]bool{false, false, false, true}},
		{"rm /q file", "rm /q file", [4]bool{true, true, true, true}},
		{"git push", "git.exe push", [4]bool{false, false, false, true}},
		{"git push", `C:\bin\git.exe push`, [4]bool{false, false, false, true}},
		{"git.exe push", "git.exe push", [4]bool{true, true, true, true}},
		{"git.exe push", "git push", [4]bool{false, false, false, false}},
	}
	for _, c := range cases {
		for i, d := range dialects {
			if got := d.DenyMatch(c.rule, c.target); got != c.want[i] {
				t.Errorf("dialect %d: DenyMatch(%q, %q) = %v, want %v", i, c.rule, c.target, got, c.want[i])
			}
		}
	}
}

// A dialect's heads list the first token of every rule it matches, unless
// the rule opens with the wildcard (which the index tries on every target).
func TestDialectDenyHeadsCoverMatches(t *testing.T) {
	rules := []string{"rm", "git push", "/bin/rm", "-x", "v", "push", "x=y", "git push --force", "rm * /", "git.exe push"}
	targets := []string{"-x v rm", "A=1 -y /usr/bin/git -c x=y push", "/bin/rm -rf", "-a -b v", "x=y rm",
		"git push origin --force", "/q rm x /", `C:\git.exe /f push`, "rm.exe -rf /tmp /"}
	for _, d := range []Dialect{{}, dialect0100, dialect0101, windows0101} {
		for _, target := range targets {
			tt := DenyTokens(target)
			heads := d.AppendDenyHeads(nil, tt)
			for _, rule := range rules {
				rt := DenyTokens(rule)
				if d.DenyMatchTokens(rt, tt) && !slices.Contains(heads, rt[0]) {
					t.Errorf("%+v: rule %q matches %q but heads %q miss %q", d, rule, target, heads, rt[0])
				}
			}
		}
	}
}

// docs/codewhale/releases/0.10.1.md N5 and A.2.5: literal leading words
// and the python -m class.
func TestDialectAllowMatch(t *testing.T) {
	cases := []struct {
		pattern, command string
		want             [2]bool // 0.9.10, 0.10.1
	}{
		{"git status", "git --no-pager status", [2]bool{true, false}},
		{"cargo test", "cargo --locked test", [2]bool{true, false}},
		{"git status", "git status -s", [2]bool{true, true}},
		{"GIT status", "git STATUS", [2]bool{true, true}},
		{"", "--version", [2]bool{true, false}},
		{"python", "python -m pytest", [2]bool{true, true}},
		{"python -m pytest", "python -m pytest -x", [2]bool{true, true}},
		{"python -m pytest", "python -m pip install x", [2]bool{false, false}},
		{"npm run build", "npm run build --x", [2]bool{true, true}},
	}
	for _, c := range cases {
		for i, d := range []Dialect{{}, dialect0101} {
			if got := d.AllowMatch(c.pattern, c.command); got != c.want[i] {
				t.Errorf("dialect %d: AllowMatch(%q, %q) = %v, want %v", i, c.pattern, c.command, got, c.want[i])
			}
		}
	}
}

func TestFoldCommandWordPath(t *testing.T) {
	cases := []struct {
		target, want string
		ok           bool
	}{
		{"/bin/rm x", "rm x", true},
		{"./rm -rf build", "rm -rf build", true},
		{`C:\bin\rm x`, "rm x", true},
		{"  /usr/bin/git  push", "git  push", true},
		{"rm x", "", false},
		{"./ x", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		if got, ok := FoldCommandWordPath(c.target); got != c.want || ok != c.ok {
			t.Errorf("FoldCommandWordPath(%q) = %q, %v", c.target, got, ok)
		}
	}
}
