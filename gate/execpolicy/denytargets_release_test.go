package execpolicy

import (
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// denyTargetsOf is the engine's deny targets of command at release r.
func denyTargetsOf(r release.Release, command string) []string {
	return denyTargets(nil, behaviourOf(r), command, shell.ExpandAs(r, command))
}

// denied reports whether a deny prefix matches one of the release's deny
// targets of command.
func denied(r release.Release, rule, command string) bool {
	return slices.ContainsFunc(denyTargetsOf(r, command), func(target string) bool { return shell.Dialect{}.DenyMatch(rule, target) })
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
					version, rule, row.command, got, want, denyTargetsOf(release.MustOf(version), row.command))
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

// TestDenyTargetsBeforeTheRewrite: at 0.9.10 (and for a zero Release) the
// deny targets are 0.9.10's; 0.10.0's are the expander's output only, so
// naive segments of quoted text are not among them (0.10.0.md A.2.3).
func TestDenyTargetsBeforeTheRewrite(t *testing.T) {
	for _, command := range []string{
		"git status && git push", "sudo -u root bash -c 'rm -rf /'", "echo `date` $(whoami)",
		"cat <<EOF\nrm -rf /\nEOF", `echo "a;b" $'x\'y' \`, "",
	} {
		for _, r := range []release.Release{{}, release.MustOf("0.9.10")} {
			if got := denyTargetsOf(r, command); !slices.Equal(got, shell.DenyTargets(command)) {
				t.Errorf("Codewhale %s, %q: deny targets %q, want %q", r.Name(), command, got, shell.DenyTargets(command))
			}
		}
	}
	if got := denyTargetsOf(release.MustOf("0.10.0"), `echo "x; rm -rf / "`); slices.Contains(got, `rm -rf / "`) {
		t.Errorf("Codewhale 0.10.0: naive segment among deny targets %q", got)
	}
}

// TestRawTextDenyTarget: 0.10.1 adds the trimmed raw command to the
// expander's output when absent (0.10.1.md A.2.3, N2).
func TestRawTextDenyTarget(t *testing.T) {
	r := release.MustOf("0.10.1")
	if !denied(r, `echo a\;b`, ` echo a\;b `) {
		t.Errorf("deny `echo a\\;b` misses the raw text: targets %q", denyTargetsOf(r, ` echo a\;b `))
	}
	// 0.10.0's expander is 0.9.10's, whose first line is the trimmed input
	// (0.10.0.md A.2.3: the raw text is a target only if the expander
	// emits it).
	if got := denyTargetsOf(release.MustOf("0.10.0"), ` echo a\;b `); len(got) == 0 || got[0] != `echo a\;b` {
		t.Errorf("0.10.0 targets %q do not open with the trimmed input", got)
	}
	if got := denyTargetsOf(r, "ls"); !slices.Equal(got, []string{"ls"}) {
		t.Errorf("targets of ls = %q, want the one line", got)
	}
}

// FuzzDenyTargets: from 0.10.1 the trimmed raw command is always among
// the deny targets (0.10.1.md N2).
func FuzzDenyTargets(f *testing.F) {
	for _, s := range []string{" echo a\\;b ", "cat <<'EOF' | bash\nrm -rf /\nEOF", "sudo -u root env -S 'rm x'", "a\r\nb$'c'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		for _, r := range release.Implemented {
			targets := denyTargetsOf(r, command)
			if trimmed := strings.TrimSpace(command); r.Has(release.RawTextDenyTarget) && trimmed != "" && !slices.Contains(targets, trimmed) {
				t.Fatalf("%s: deny targets %q miss the raw text", r.Version, targets)
			}
		}
	})
}
