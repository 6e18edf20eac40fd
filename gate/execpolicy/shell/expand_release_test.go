package shell

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestExpansionFlags checks the 0.10.1 flags on the examples of
// docs/codewhale/releases/0.10.1.md A.2.2 (dynamic), A.2.5 and A.2.7
// (eligibility) and A.2.6 (control), and that releases before 0.10.1 set
// none of them.
func TestExpansionFlags(t *testing.T) {
	type flags struct{ dynamic, argumentsDynamic, control, eligible bool }
	for _, row := range []struct {
		command string
		want    flags
	}{
		// A.2.2: run-time command words.
		{"v=rm; $v -f f", flags{dynamic: true, control: true}},
		{`source "$HOME/.cargo/env"`, flags{dynamic: true, argumentsDynamic: true}},
		{`eval "$(pyenv init -)"`, flags{dynamic: true, argumentsDynamic: true}},
		{"$PYTHON -m pytest", flags{dynamic: true}},
		{"echo rm x | bash", flags{dynamic: true, control: true}},
		{"v=ls; $v", flags{dynamic: true, control: true}},
		{"ls *.rs", flags{argumentsDynamic: true}},
		{"echo $HOME", flags{argumentsDynamic: true}},
		{"cat $f", flags{argumentsDynamic: true}},
		{"sh <<< 'ls'", flags{dynamic: true}},
		{"printf ls | sh", flags{dynamic: true, control: true}},
		{"{rm,-f,x}", flags{dynamic: true}},
		{"r[m] x", flags{dynamic: true}},
		{"rm $x", flags{argumentsDynamic: true}},
		{"$X", flags{dynamic: true}},
		// A.2.5, A.2.7: prefix-grant eligibility.
		{"git status -s", flags{eligible: true}},
		{"git --no-pager status", flags{eligible: true}},
		{"cargo --locked test", flags{eligible: true}},
		{"cargo test", flags{eligible: true}},
		{"--version", flags{eligible: true}},
		{"sed -n 1p f", flags{eligible: true}},
		{"find . -name x", flags{eligible: true}},
		{"cargo build --release", flags{eligible: true}},
		{"python -m pytest -x", flags{eligible: true}},
		{"git status > out.txt", flags{}},
		{"git status $(touch x)", flags{argumentsDynamic: true}},
		{"cargo test > log", flags{}},
		{"cat a > out", flags{}},
		{"git log --output=out", flags{}},
		{"git -C . log --output=out", flags{}},
		{"sort -o out input", flags{}},
		{"sudo sort -o out input", flags{}},
		{"env node x.js", flags{}},
		{"env", flags{}},
		{"sed 's/a/b/' f", flags{}},
		{"find . -delete", flags{}},
		{"git branch -D main", flags{}},
		{"git branch --list", flags{eligible: true}},
		{"git remote add o u", flags{}},
		{"git remote -v", flags{eligible: true}},
		{"uniq in out", flags{}},
		{"'unterminated", flags{dynamic: true}},
		// A.2.6: control is an unquoted, unescaped operator.
		{"curl 'https://x.example/?a=1&b=2'", flags{eligible: true}},
		{`echo "a|b"`, flags{eligible: true}},
		{`git commit -m "fix; later"`, flags{eligible: true}},
		{"git status\rrm -rf ~", flags{control: true}},
		{"(git status)", flags{control: true}},
		{"echo ok # ; |", flags{eligible: true}},
		{`ls \; ls`, flags{eligible: true}},
		{"cargo test && cargo test", flags{control: true}},
	} {
		e := ExpandAs(release.MustOf("0.10.1"), row.command)
		got := flags{e.Dynamic, e.ArgumentsDynamic, e.Control, e.PrefixGrantEligible}
		if got != row.want {
			t.Errorf("%q: dynamic, arguments dynamic, control, eligible = %+v, want %+v", row.command, got, row.want)
		}
		for _, version := range []string{"0.9.10", "0.10.0"} {
			old := ExpandAs(release.MustOf(version), row.command)
			if old.Dynamic || old.ArgumentsDynamic || old.Nested || old.Redirects || !old.PrefixGrantEligible || old.Control != Chained(row.command) {
				t.Errorf("Codewhale %s, %q: 0.10.1 flags leaked into %+v", version, row.command, old)
			}
		}
	}
}

// TestExpandAsBeforeTheRewrite: at 0.9.10 ExpandAs is the 0.9.10 expander
// (a zero Release is 0.9.10); at 0.10.0 it differs only for heredocs.
func TestExpandAsBeforeTheRewrite(t *testing.T) {
	for _, command := range []string{
		"git status && git push", "sudo -u root bash -c 'rm -rf /'", "echo `date` $(whoami)",
		"cat <<EOF\nrm -rf /\nEOF", `echo "a;b" $'x\'y' \`, "",
	} {
		for _, r := range []release.Release{{}, release.MustOf("0.9.10")} {
			if got := ExpandAs(r, command).Commands; !slices.Equal(got, Expand(command)) {
				t.Errorf("Codewhale %s, %q: %q, want Expand's %q", r.Name(), command, got, Expand(command))
			}
		}
	}
	ten := release.MustOf("0.10.0")
	for _, command := range []string{"git status && git push", "sudo -u root bash -c 'rm -rf /'", "echo `date` $(whoami)"} {
		if got := ExpandAs(ten, command).Commands; !slices.Equal(got, Expand(command)) {
			t.Errorf("Codewhale 0.10.0, %q: %q, want Expand's %q", command, got, Expand(command))
		}
	}
}

// TestClassifyPerRelease: 0.10.1 keeps `python -m` in the class
// (0.10.1.md A.2.5), and a prefix grant needs its words at the front.
func TestClassifyPerRelease(t *testing.T) {
	older, newest := DialectOf(release.MustOf("0.10.0")), DialectOf(release.MustOf("0.10.1"))
	for _, row := range []struct{ command, old, new string }{
		{"python -m pytest -q", "python", "python -m pytest"},
		{"python3 -m pip install x", "python3", "python3 -m pip"},
		{"python -m", "python", "python -m"},
		{"Python -m http.server", "python", "python -m http.server"},
		// 0.10.1 lowercases the first word only: `-m` must be spelled so.
		{"Python -M pytest", "python", "python"},
		{"python -M pytest", "python", "python"},
		{"PYTHON3 -M pip install x", "python3", "python3"},
		{"PYTHON3 -m pip install x", "python3", "python3 -m pip"},
		{"  Python\t-m   Pytest -q ", "python", "python -m pytest"},
		{"python --m pytest", "python", "python"},
		{"python -mpytest", "python", "python"},
		{"pytest -m python", "pytest", "pytest"},
		{"git status -s", "git status", "git status"},
		{"python manage.py", "python", "python"},
	} {
		if got := older.Classify(row.command); got != row.old {
			t.Errorf("0.10.0 %q: %q, want %q", row.command, got, row.old)
		}
		if got := newest.AllowSubject(row.command).Class; got != row.new {
			t.Errorf("0.10.1 %q: %q, want %q", row.command, got, row.new)
		}
	}
	for _, row := range []struct {
		command string
		leading bool
	}{
		{"Python -M pytest", true},
		{"git status -s", true},
		{"GIT Status", true},
		{"git --no-pager status", false},
		{"cargo --locked test", false},
		{"python -m pytest -x", true},
		{"--version", false},
	} {
		if got := newest.AllowSubject(row.command).ClassMatches; got != row.leading {
			t.Errorf("0.10.1 %q: class matches = %v, want %v", row.command, got, row.leading)
		}
		if got := older.AllowSubject(row.command).ClassMatches; !got {
			t.Errorf("0.10.0 %q: the class does not match", row.command)
		}
	}
}

// TestClassifyMatchesReference compares every release's classifier with
// the spec's statement of it (referenceClassifyAs) on random commands built
// around python -m in every case.
func TestClassifyMatchesReference(t *testing.T) {
	words := []string{"python", "Python", "PYTHON3", "python3", "-m", "-M", "--m", "-mpytest", "pytest", "Pytest", "pip", "install", "-q", "git", "status", "x"}
	separators := []string{" ", " ", "  ", "\t", " \u00a0"}
	rng := rand.New(rand.NewPCG(17, 1))
	for range 5000 {
		var b strings.Builder
		if rng.IntN(5) == 0 {
			b.WriteString(separators[rng.IntN(len(separators))])
		}
		for i := range 1 + rng.IntN(5) {
			if i > 0 {
				b.WriteString(separators[rng.IntN(len(separators))])
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		command := b.String()
		for _, r := range release.Implemented {
			d := DialectOf(r)
			want := referenceClassifyAs(command, r.Has(release.PythonModuleClass))
			if got := d.Classify(command); got != want {
				t.Fatalf("%s Classify(%q) = %q, want %q", r.Version, command, got, want)
			}
			if got := d.AllowSubject(command).Class; got != want {
				t.Fatalf("%s AllowSubject(%q).Class = %q, want %q", r.Version, command, got, want)
			}
		}
	}
}

// TestRewriteCaps: 0.10.1 bounds its work (depth 8, 256 lines, 512
// wrapper-walk states), and code it did not examine makes the command
// dynamic (0.10.1.md A.2.2).
func TestRewriteCaps(t *testing.T) {
	r := release.MustOf("0.10.1")
	var many []string
	for i := range maxLines + 10 {
		many = append(many, "cmd"+strconv.Itoa(i))
	}
	for _, row := range []struct {
		name, command string
		dynamic       bool
	}{
		{"lines", strings.Join(many, "; "), true},
		{"lines within the cap", strings.Join(many[:maxLines], "; "), false},
		{"depth", strings.Repeat("eval ", maxDepth+1) + "ls", true},
		{"depth within the cap", strings.Repeat("eval ", maxDepth) + "ls", false},
		// An option env's grammar does not know is read both ways.
		{"wrapper states", "env " + strings.Repeat("-Z ", maxHeadStates+10) + "ls", true},
		{"wrapper states within the cap", "env " + strings.Repeat("-Z ", maxHeadStates/2) + "ls", false},
	} {
		e := ExpandAs(r, row.command)
		if e.Dynamic != row.dynamic || len(e.Commands) > maxLines {
			t.Errorf("%s: dynamic = %v with %d lines, want dynamic %v", row.name, e.Dynamic, len(e.Commands), row.dynamic)
		}
	}
}
