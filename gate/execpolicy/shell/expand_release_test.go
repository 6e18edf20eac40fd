package shell

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// denied reports whether a deny prefix matches one of the release's deny
// targets of command.
func denied(r release.Release, rule, command string) bool {
	return slices.ContainsFunc(DenyTargetsAs(r, command), func(target string) bool { return DenyMatch(rule, target) })
}

// answer is a table cell: whether the deny prefix meets a deny target, per
// release; a release left out is not stated by the table.
type answer map[string]bool

func checkDenyTable(t *testing.T, rule string, rows []struct {
	command string
	want    answer
}) {
	t.Helper()
	for _, row := range rows {
		for version, want := range row.want {
			if got := denied(release.MustOf(version), rule, row.command); got != want {
				t.Errorf("Codewhale %s, deny %q, %q: denied = %v, want %v (targets %q)",
					version, rule, row.command, got, want, DenyTargetsAs(release.MustOf(version), row.command))
			}
		}
	}
}

// TestHeredocDataPerRelease is the table of docs/codewhale/releases/0.10.0.md
// A.3.2 (deny prefix `git switch -f`): heredoc data stops being a deny
// target in 0.10.0; substitutions of unquoted bodies, bodies a shell reads
// and the forms that fail safe still are.
func TestHeredocDataPerRelease(t *testing.T) {
	all := func(v bool) answer { return answer{"0.10.0": v, "0.10.1": v} }
	checkDenyTable(t, "git switch -f", []struct {
		command string
		want    answer
	}{
		{"cat <<'EOF'\ngit switch -f\nEOF", answer{"0.9.10": true, "0.10.0": false, "0.10.1": false}},
		{"cat <<EOF\ngit switch -f\nEOF", answer{"0.9.10": true, "0.10.0": false, "0.10.1": false}},
		{"cat <<-E'OF'\n\tgit switch -f\n\tEOF", all(false)},
		{"cat <<\"EOF\"\n$(git switch -f)\nEOF", all(false)},
		{"cat <<'A' <<'B'\ngit switch -f\nA\ngit switch -f\nB", all(false)},
		{"cat <<EOF\n$(git switch -f)\nEOF", all(true)},
		{"cat <<EOF\n`git switch -f`\nEOF", all(true)},
		{"cat <<'EOF'\nexample\nEOF\ngit switch -f", all(true)},
		{"cat <<'EOF' | bash\ngit switch -f\nEOF", all(true)},
		{"bash <<'EOF'\ngit switch -f\nEOF", all(true)},
		{"# cat <<EOF\ngit switch -f", all(true)},
		{"cat <<EOF\nE\\\nOF\ngit switch -f", all(true)},
		{"cat <<$'EOF'\ngit switch -f\nEOF", all(true)},
		{"cat <<'EOF'\r\ngit switch -f\r\nEOF\r\n", all(true)},
		// 0.10.0 reads code strings as 0.9.10 did (fails safe); 0.10.1
		// reads the heredoc inside the -c string, where it is data.
		{"bash -c \"cat <<'EOF'\ngit switch -f\nEOF\"", answer{"0.9.10": true, "0.10.0": true, "0.10.1": false}},
		// Unterminated: 0.10.0 keeps every line (fail closed, see
		// choices.md); 0.10.1 drops the data and marks the command dynamic.
		{"cat <<EOF\ngit switch -f", answer{"0.9.10": true, "0.10.0": true}},
	})
}

// TestExpanderRewriteDenyTable is the N9 table of
// docs/codewhale/releases/0.10.1.md A.3.2 (deny prefix `rm`).
func TestExpanderRewriteDenyTable(t *testing.T) {
	newly := answer{"0.9.10": false, "0.10.0": false, "0.10.1": true}
	same := func(v bool) answer { return answer{"0.9.10": v, "0.10.0": v, "0.10.1": v} }
	rows := []struct {
		command string
		want    answer
	}{
		{"chroot /newroot rm -rf /", newly},
		{"sudo --user root bash -c 'rm -rf /'", newly},
		{"timeout -s KILL 5 rm x", newly},
		{"watch rm -rf /", newly},
		{"trap 'rm -rf /' EXIT", newly},
		{"su -c 'rm -rf /' root", newly},
		{"flock /tmp/lock -c 'rm x'", newly},
		{"script -qc 'rm x' /dev/null", newly},
		{"find . -exec rm {} +", newly},
		{"if true; then rm x; fi", newly},
		{"function f { rm x; }", newly},
		{"! rm x", newly},
		{"cmd /c rm x", newly},
		{"pwsh -NoProfile -Command rm x", newly},
		{"caffeinate -i rm x", newly},
		{"nsenter -t 1 -m rm x", newly},
		{"taskset 0x3 rm x", newly},
		{"command -v rm", answer{"0.9.10": true, "0.10.0": true, "0.10.1": false}},
		{"cat <<'EOF'\nrm x\nEOF", answer{"0.9.10": true, "0.10.0": false, "0.10.1": false}},
		{"bash <<'EOF'\nrm x\nEOF", same(true)},
		{"((x = 1 << 2))\nrm x", same(true)},
		{"xargs rm", same(true)},
		{"echo bash -c \"rm x\"", same(false)},
		{"sudo -u root ls", same(false)},
		{"nice -5 ls", same(false)},
	}
	checkDenyTable(t, "rm", rows)
}

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
			if got := DenyTargetsAs(r, command); !slices.Equal(got, DenyTargets(command)) {
				t.Errorf("Codewhale %s, %q: deny targets %q, want %q", r.Name(), command, got, DenyTargets(command))
			}
		}
	}
	ten := release.MustOf("0.10.0")
	for _, command := range []string{"git status && git push", "sudo -u root bash -c 'rm -rf /'", "echo `date` $(whoami)"} {
		if got := ExpandAs(ten, command).Commands; !slices.Equal(got, Expand(command)) {
			t.Errorf("Codewhale 0.10.0, %q: %q, want Expand's %q", command, got, Expand(command))
		}
	}
	// 0.10.0's deny targets are the expander's output only: naive
	// segments of quoted text are not (0.10.0.md A.2.3).
	if got := DenyTargetsAs(ten, `echo "x; rm -rf / "`); slices.Contains(got, `rm -rf / "`) {
		t.Errorf("Codewhale 0.10.0: naive segment among deny targets %q", got)
	}
}

// TestRawTextDenyTarget: 0.10.1 adds the trimmed raw command to the
// expander's output when absent (0.10.1.md A.2.3, N2).
func TestRawTextDenyTarget(t *testing.T) {
	r := release.MustOf("0.10.1")
	if !denied(r, `echo a\;b`, ` echo a\;b `) {
		t.Errorf("deny `echo a\\;b` misses the raw text: targets %q", DenyTargetsAs(r, ` echo a\;b `))
	}
	// 0.10.0's expander is 0.9.10's, whose first line is the trimmed input
	// (0.10.0.md A.2.3: the raw text is a target only if the expander
	// emits it).
	if got := DenyTargetsAs(release.MustOf("0.10.0"), ` echo a\;b `); len(got) == 0 || got[0] != `echo a\;b` {
		t.Errorf("0.10.0 targets %q do not open with the trimmed input", got)
	}
	if got := DenyTargetsAs(r, "ls"); !slices.Equal(got, []string{"ls"}) {
		t.Errorf("targets of ls = %q, want the one line", got)
	}
}

// TestClassifyPerRelease: 0.10.1 keeps `python -m` in the class
// (0.10.1.md A.2.5), and a prefix grant needs its words at the front.
func TestClassifyPerRelease(t *testing.T) {
	for _, row := range []struct{ command, old, new string }{
		{"python -m pytest -q", "python", "python -m pytest"},
		{"python3 -m pip install x", "python3", "python3 -m pip"},
		{"python -m", "python", "python -m"},
		{"Python -m http.server", "python", "python -m http.server"},
		{"python -M pytest", "python", "python"},
		{"git status -s", "git status", "git status"},
		{"python manage.py", "python", "python"},
	} {
		if got := ClassifyAs(release.MustOf("0.10.0"), row.command); got != row.old {
			t.Errorf("0.10.0 %q: %q, want %q", row.command, got, row.old)
		}
		if got := NewAllowSubjectAs(release.MustOf("0.10.1"), row.command).Class; got != row.new {
			t.Errorf("0.10.1 %q: %q, want %q", row.command, got, row.new)
		}
	}
	for _, row := range []struct {
		command, class string
		want           bool
	}{
		{"git status -s", "git status", true},
		{"GIT Status", "git status", true},
		{"git --no-pager status", "git status", false},
		{"cargo --locked test", "cargo test", false},
		{"python -m pytest -x", "python -m pytest", true},
		{"python -m http.server", "python http.server", true},
		{"--version", "", false},
		{"git", "git status", false},
	} {
		if got := LiteralFront(row.command, row.class); got != row.want {
			t.Errorf("LiteralFront(%q, %q) = %v, want %v", row.command, row.class, got, row.want)
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
