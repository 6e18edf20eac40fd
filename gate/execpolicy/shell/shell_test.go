package shell

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// dialect0910 is 0.9.10's reading, the zero Dialect.
var dialect0910 Dialect

// §3.1 and §6.3: the naive splitter ignores quotes; a lone \r is no break.
func TestSegments(t *testing.T) {
	cases := []struct {
		command string
		want    []string
	}{
		{"git status", []string{"git status"}},
		{"cargo test 2>&1", []string{"cargo test 2>", "1"}},
		{"curl 'u?a=1&b=2'", []string{"curl 'u?a=1", "b=2'"}},
		{`echo "a|b"`, []string{`echo "a`, `b"`}},
		{`echo a\;b`, []string{`echo a\`, "b"}},
		{"$(a|b)", []string{"$(a", "b)"}},
		{"a\r\nb", []string{"a", "b"}},
		{"git status\rrm -rf ~", []string{"git status\rrm -rf ~"}},
		{"  ;; && || ", nil},
		{"", nil},
		{"a\u00a0;\u2003b", []string{"a", "b"}},
	}
	for _, c := range cases {
		if got := Segments(c.command); !slices.Equal(got, c.want) {
			t.Errorf("Segments(%q) = %q, want %q", c.command, got, c.want)
		}
		if got := Chained(c.command); got != (len(c.want) > 1) {
			t.Errorf("Chained(%q) = %v", c.command, got)
		}
	}
}

// §3.2, every row of the construct table.
func TestExpand(t *testing.T) {
	cases := []struct {
		command string
		want    []string
	}{
		{`rm\ -rf x`, []string{`rm\ -rf x`, "rm -rf x"}},
		{"ab\\\ncd", []string{"ab\\\ncd", "abcd"}},
		{`x \`, []string{`x \`, "x"}},
		{`echo 'a "b" \n'`, []string{`echo 'a "b" \n'`, `echo a "b" \n`}},
		{`echo 'unterminated`, []string{`echo 'unterminated`, "echo unterminated"}},
		{`echo "a\"b $(id) ${HOME} ` + "`w`" + ` c"`, []string{`echo "a\"b $(id) ${HOME} ` + "`w`" + ` c"`, `echo a"b    c`, "id", "HOME", "w"}},
		{`echo $'a\'b'`, []string{`echo $'a\'b'`, "echo a'b"}},
		{"echo `a \\` b`", []string{"echo `a \\` b`", "echo", "a ` b"}},
		{"x $(a $(b) c) y", []string{"x $(a $(b) c) y", "x y", "a c", "b"}},
		{"diff <(ls) >(cat)", []string{"diff <(ls) >(cat)", "diff", "ls", "cat"}},
		{"(a)b", []string{"(a)b", "a", "b"}},
		{"a\rb", []string{"a\rb", "a", "b"}},
		{"a <<< b > c {d} x=y", []string{"a <<< b > c {d} x=y"}},
		{"{ a; }", []string{"{ a; }", "a"}},
		{"'' x", []string{"'' x", "x"}},
		{"A=1 sudo -E env B=2 ls", []string{"A=1 sudo -E env B=2 ls", "-E env B=2 ls"}},
		{"timeout 5 nice 1.5s ls", []string{"timeout 5 nice 1.5s ls", "ls"}},
		{"A=1 5 ls", []string{"A=1 5 ls", "5 ls"}},
		{"/bin/BASH -lc 'x; y'", []string{"/bin/BASH -lc 'x; y'", "/bin/BASH -lc x; y", "x", "y"}},
		{"zsh --COMMAND z", []string{"zsh --COMMAND z", "z"}},
		{"sh -x -cx 'q'", []string{"sh -x -cx 'q'", "sh -x -cx q", "q"}},
		{"sh -c", []string{"sh -c"}},
		{"eval 'a b' c", []string{"eval 'a b' c", "eval a b c", "a b c"}},
		{"a b c d e f g h bash -c x", []string{"a b c d e f g h bash -c x"}},
		{"-1 -2 -3 -4 -5 -6 -7 bash -c x", []string{"-1 -2 -3 -4 -5 -6 -7 bash -c x", "x"}},
		{"-1 -2 -3 -4 -5 -6 -7 -8 bash -c x", []string{"-1 -2 -3 -4 -5 -6 -7 -8 bash -c x"}},
		{"  a; a  ", []string{"a; a", "a"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := Expand(c.command); !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q)\n got %q\nwant %q", c.command, got, c.want)
		}
	}
}

// Nested bodies deeper than 8 are silently ignored (§3.2).
func TestExpandDepth(t *testing.T) {
	nest := func(n int) string {
		s := "deep"
		for range n {
			s = "$(" + s + ")"
		}
		return s
	}
	if got := Expand(nest(8)); !slices.Contains(got, "deep") {
		t.Errorf("depth 8 body missing: %q", got)
	}
	if got := Expand(nest(9)); slices.Contains(got, "deep") {
		t.Errorf("depth 9 body expanded: %q", got)
	}
}

func TestExpandCap(t *testing.T) {
	var parts []string
	for i := range 400 {
		parts = append(parts, fmt.Sprintf("c%d", i))
	}
	got := Expand(strings.Join(parts, ";"))
	if len(got) != maxLines {
		t.Fatalf("got %d lines, want %d", len(got), maxLines)
	}
	if got[1] != "c0" || got[maxLines-1] != "c254" {
		t.Errorf("wrong lines kept: %q … %q", got[1], got[maxLines-1])
	}
}

// §3.4 effects and §6.1.
func TestDenyMatch(t *testing.T) {
	cases := []struct {
		rule, target string
		want         bool
	}{
		{"git push", "git -c x=y push", true},
		{"git push", "git --no-verify push", true},
		{"git push", "GIT PUSH", true},
		{"git push", "GIT_TRACE=1 git push", true},
		{"git push", "/usr/bin/git push", true},
		{"git push", "git checkout push", false},
		{"git push", "git pushd", false},
		{"git push", "git -c alias.p=push p", false},
		{"rm -rf /", "rm -fr /", false},
		{"rm -rf /", "rm -r -f /", false},
		{"rm -rf /", "rm -rf /*", false},
		{"rm -rf /", "rm -rf / now", true},
		{"rm", `C:\bin\rm.exe x`, false},
		{"rm", `C:\bin\rm x`, true},
		{"/bin/rm", "rm x", false},
		{"/bin/rm", "/bin/rm x", true},
		{"rm", "$((rm x));", true},
		{"rm", "{(rm x)}", true},
		{"", "rm", false},
		{"rm", "", false},
		{"rm", "/", false},
		{"ÉCHO", "échO", false},
		{"echo", "ECHO hi", true},
		{"rm", "-S rm", true},
		{"rm", "--opt=v rm", true},
		{"rm", "--opt=v x rm", false},
		{"rm", "-x v rm", true},
		{"rm", "1X=y rm", true},
	}
	for _, c := range cases {
		if got := dialect0910.DenyMatch(c.rule, c.target); got != c.want {
			t.Errorf("DenyMatch(%q, %q) = %v, want %v", c.rule, c.target, got, c.want)
		}
	}
}

// DenyHeads must list the first-token spelling of every matching rule.
func TestDenyHeadsCoverMatches(t *testing.T) {
	rules := []string{"rm", "git push", "/bin/rm", "-x", "v", "push", "x=y"}
	targets := []string{"-x v rm", "A=1 -y /usr/bin/git -c x=y push", "/bin/rm -rf", "-a -b v", "x=y rm"}
	for _, target := range targets {
		tt := DenyTokens(target)
		heads := dialect0910.AppendDenyHeads(nil, tt)
		for _, rule := range rules {
			rt := DenyTokens(rule)
			if dialect0910.DenyMatchTokens(rt, tt) && !slices.Contains(heads, rt[0]) {
				t.Errorf("rule %q matches %q but heads %q miss %q", rule, target, heads, rt[0])
			}
		}
	}
}

// §3.5 practical reading, plus the arity table's corners.
func TestAllowMatch(t *testing.T) {
	cases := []struct {
		pattern, command string
		want             bool
	}{
		{"git", "git push --force", true},
		{"npm run", "npm run build", true},
		{"ls", "lsof", false},
		{"git status", "git --no-pager status", true},
		{"cargo test", "cargo --locked test", true},
		{"git status", "git -C /etc status", false},
		{"git status", "git status > ~/.bashrc", true},
		{"git status", "git status $(curl x -o /tmp/x)", true},
		{"git status", "FOO=1 git status", false},
		{"git status", "/usr/bin/git status", false},
		{"cargo test", "cargo +nightly test", false},
		{"  GIT   Status ", "git status -s", true},
		{"git  status", "git status", true},
		{"python -m", "python -m pytest", true},
		{"", "--version", true},
		{"", "git", false},
		{"ÉCHO", "échO", false},
		{"git status", "git status;", false},
	}
	for _, c := range cases {
		if got := dialect0910.AllowMatch(c.pattern, c.command); got != c.want {
			t.Errorf("AllowMatch(%q, %q) = %v, want %v", c.pattern, c.command, got, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	cases := map[string]string{
		"":                        "",
		"--version":               "",
		"python -m pytest":        "python",
		"npx prettier --write .":  "npx prettier",
		"npm run build --x":       "npm run build",
		"npm run":                 "npm run",
		"docker compose":          "docker compose",
		"make":                    "make",
		"GIT STATUS":              "git status",
		"go mod tidy extra":       "go mod tidy",
		"unknown sub":             "unknown",
		"git\u00a0status\u2003-s": "git status",
	}
	for command, want := range cases {
		if got := dialect0910.Classify(command); got != want {
			t.Errorf("Classify(%q) = %q, want %q", command, got, want)
		}
	}
	if len(arity) != 215 {
		t.Errorf("arity table has %d entries, want 215", len(arity))
	}
}

func TestExactKey(t *testing.T) {
	cases := []struct {
		rule, command string
		want          bool
	}{
		{"cargo test", "cargo test ", true},
		{"cargo test", "cargo  test", false},
		{"cargo test", "Cargo test", false},
		{" cargo test\t", "cargo test", true},
	}
	for _, c := range cases {
		if got := ExactKey(c.rule) == ExactKey(c.command); got != c.want {
			t.Errorf("ExactKey(%q) == ExactKey(%q) is %v", c.rule, c.command, got)
		}
	}
}

func TestKnownFamily(t *testing.T) {
	for family, want := range map[string]bool{
		"git status": true, "cargo test": true, "make": true, "npm run build": true,
		"git": false, "rm": false, "": false, "frobnicate now": false,
		// Not a Classify result: its words count, however spaced.
		" git\t status ": true, "cargo  test\u00a0-q": true, "   ": false,
	} {
		if got := KnownFamily(family); got != want {
			t.Errorf("KnownFamily(%q) = %v, want %v", family, got, want)
		}
	}
}
