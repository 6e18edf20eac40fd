package shell

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func FuzzShell(f *testing.F) {
	for _, s := range []string{
		"git status -s", "sudo -u root bash -c 'rm -rf /'", "(cd /tmp && rm -rf /)",
		"echo `date` $(whoami)", "cat <<EOF\nrm -rf /\nEOF", `echo "a;b" $'x\'y' \`,
		"$(((((((((((x)))))))))))", "eval eval eval bash -c 'sh -c \"rm -rf /\"'", "a\u00a0b\r\nc",
	} {
		f.Add(s, "rm -rf /")
	}
	f.Fuzz(func(t *testing.T, command, rule string) {
		segments := Segments(command)
		for _, s := range segments {
			if s == "" || s != strings.TrimSpace(s) {
				t.Fatalf("bad segment %q", s)
			}
		}
		lines := Expand(command)
		if len(lines) > maxLines {
			t.Fatalf("%d lines", len(lines))
		}
		if trimmed := strings.TrimSpace(command); trimmed != "" && (len(lines) == 0 || lines[0] != trimmed) {
			t.Fatalf("expander output %q does not start with the trimmed input", lines)
		}
		targets := DenyTargets(command)
		if trimmed := strings.TrimSpace(command); trimmed != "" && !slices.Contains(targets, trimmed) {
			t.Fatalf("deny targets %q miss the trimmed command", targets)
		}
		for _, s := range segments {
			if !slices.Contains(targets, s) {
				t.Fatalf("deny targets miss segment %q", s)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(targets)))) != len(targets) {
			t.Fatalf("duplicate deny targets %q", targets)
		}
		if utf8.ValidString(command) {
			for _, l := range lines {
				if !utf8.ValidString(l) {
					t.Fatalf("expander broke UTF-8: %q", l)
				}
			}
		}
		ruleTokens := DenyTokens(rule)
		for _, target := range targets {
			tt := DenyTokens(target)
			if dialect0910.DenyMatchTokens(ruleTokens, tt) && !slices.Contains(dialect0910.AppendDenyHeads(nil, tt), ruleTokens[0]) {
				t.Fatalf("DenyHeads(%q) misses %q", target, ruleTokens[0])
			}
		}
		subject := dialect0910.AllowSubject(command)
		pattern := NewAllowPattern(rule)
		if pattern.Matches(subject) && pattern.Lowered != subject.Class && !slices.Contains(subject.PrefixKeys(), pattern.Collapsed) {
			t.Fatalf("PrefixKeys of %q miss pattern %q", command, rule)
		}
		_ = dialect0910.Classify(command)
		_ = ExactKey(command)
	})
}

// FuzzExpandAs: every release's expander stays within its caps, emits each
// line once and never an empty one, keeps 0.9.10's output where the
// release did not change it, and (from 0.10.1) grants prefix eligibility
// only to a command without any flag.
func FuzzExpandAs(f *testing.F) {
	for _, s := range []string{
		"git status -s", "cat <<'EOF' | bash\nrm -rf /\nEOF", "cat <<-E'OF'\n\tx\n\tEOF", "sudo -u root env -S 'rm x'",
		"xargs -I{} sh -c {}", "find . -exec rm {} +", "pwsh -enc AAA", "cmd /c del %X%", "((x = 1 << 2))\nrm x",
		"$(case x in a) rm;; esac)", "bash -o vi -c 'rm x'", "trap 'rm x' EXIT", "a\r\nb$'c'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		for _, r := range release.Implemented {
			e := ExpandAs(r, command)
			if len(e.Commands) > maxLines {
				t.Fatalf("%s: %d lines", r.Version, len(e.Commands))
			}
			seen := map[string]bool{}
			for _, line := range e.Commands {
				if line == "" || seen[line] {
					t.Fatalf("%s: empty or repeated line %q in %q", r.Version, line, e.Commands)
				}
				seen[line] = true
			}
			if r.Has(release.PrefixGrantEligibility) && e.PrefixGrantEligible && (e.Dynamic || e.Nested || e.ArgumentsDynamic || e.Control || e.Redirects) {
				t.Fatalf("%s: eligible with flags %+v", r.Version, e)
			}
		}
		if got := ExpandAs(release.Release{}, command).Commands; !slices.Equal(got, Expand(command)) {
			t.Fatalf("0.9.10 expansion %q differs from Expand", got)
		}
	})
}
