package diagnostics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

const rmDeny = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n"

// bypassText is every CW211 of a result's permissions.toml, messages and
// related messages, in one text.
func bypassText(ps []problem.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Message + "\n")
		for _, r := range p.Related {
			b.WriteString(r.Message + "\n")
		}
	}
	return b.String()
}

// CW211 names, per release, rewrites the release's own engine lets past
// the rule, and the engine is the oracle: 0.10.1 sees through nested
// substitutions and ANSI-C quoting, which 0.9.10 and 0.10.0 do not. The
// wrappers make one finding per file on the rule's header; rm's flag
// spellings, which a rule can hold, one on the rule's command.
func TestBypassedPerRelease(t *testing.T) {
	w := newLintWorld(t, "")
	gitDeny := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n"
	for _, c := range []struct {
		version, rules string
		findings       int
		has, hasNot    []string
	}{
		{"0.9.10", rmDeny, 2, []string{"`rm -fr /`", "Codewhale 0.9.10"}, nil},
		{"0.10.1", rmDeny, 2, []string{"`rm -fr /`", "Codewhale 0.10.1"}, nil},
		{"0.9.10", gitDeny, 1, []string{"`$'\\x67\\x69\\x74' push`", "`{git,push}`"}, nil},
		{"0.10.0", gitDeny, 1, []string{"`$'\\x67\\x69\\x74' push`"}, nil},
		{"0.10.1", gitDeny, 1, []string{"`python3 -c", "perhaps others"}, []string{"$'\\x67", "{git,push}", "$(echo"}},
	} {
		ps := problemsWithCode(w.checkAt(c.version, map[string]string{w.permissions: c.rules}), w.permissions, string(problem.RuleBypassed))
		if len(ps) != c.findings {
			t.Errorf("%s %q: %d CW211, want %d", c.version, c.rules, len(ps), c.findings)
			continue
		}
		text := bypassText(ps)
		for _, s := range c.has {
			if !strings.Contains(text, s) {
				t.Errorf("%s: %q lacks %q", c.version, text, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(text, s) {
				t.Errorf("%s: %q names %q, which the release's engine holds", c.version, text, s)
			}
		}
	}
}

// Point 12 of issue 24: every shell deny rule got the same long CW211,
// three of seven findings on a small file. Now the wrappers that walk past
// them are one finding for the file, on the first rule, naming the lines
// of all and, in its related information, each rule with what gets past
// it.
func TestBypassedIsOneFindingPerFile(t *testing.T) {
	w := newLintWorld(t, "")
	var src strings.Builder
	for _, c := range []string{"git push", "npm publish", "cargo publish"} {
		fmt.Fprintf(&src, "[[rules]]\ntool = \"exec_shell\"\ncommand = %q\naction = \"deny\"\n\n", c)
	}
	src.WriteString("[[rules]]\ntool = \"exec_shell\"\ncommand = \"git reset --hard\"\n")
	for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
		ps := problemsWithCode(w.checkAt(version, map[string]string{w.permissions: src.String()}), w.permissions, string(problem.RuleBypassed))
		if len(ps) != 1 {
			t.Fatalf("%s: %d CW211, want one for the file: %+v", version, len(ps), ps)
		}
		p := ps[0]
		if p.Severity != problem.Info || !strings.Contains(p.Message, "4 shell deny and ask rules of this file (lines 1, 6, 11 and 16)") {
			t.Errorf("%s: %s %q", version, p.Severity, p.Message)
		}
		if spanText(src.String(), p.Span) != "rules" || p.Span.Start > 10 {
			t.Errorf("%s: on %q at %d, want the first rule's header", version, spanText(src.String(), p.Span), p.Span.Start)
		}
		if len(p.Related) != 4 || !strings.Contains(p.Related[3].Message, "get past this ask rule") || !strings.Contains(p.Related[1].Message, "npm publish") {
			t.Errorf("%s: related %+v", version, p.Related)
		}
	}
}

// Rules with nothing to walk past get no CW211: a file tool's deny, an
// allow, a deny scoped to a workspace.
func TestBypassedNotForOtherRules(t *testing.T) {
	w := newLintWorld(t, "")
	for _, rules := range []string{
		"[[rules]]\ntool = \"read_file\"\npath = \".env\"\naction = \"deny\"\n",
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"allow\"\n",
		fmt.Sprintf("[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\nworkspace = %q\naction = \"deny\"\n", w.ws),
	} {
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			if ps := problemsWithCode(w.checkAt(version, map[string]string{w.permissions: rules}), w.permissions, string(problem.RuleBypassed)); len(ps) > 0 {
				t.Errorf("%s %q: %s", version, rules, ps[0].Message)
			}
		}
	}
}

// The quick fix adds a deny for each flag spelling that got through; the
// file it writes has no such gap left: the finding on the rule is gone,
// and only the file's wrapper finding remains.
func TestBypassedFixAddsTheSpellings(t *testing.T) {
	w := newLintWorld(t, "")
	for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
		ps := problemsWithCode(w.checkAt(version, map[string]string{w.permissions: rmDeny}), w.permissions, string(problem.RuleBypassed))
		var fixable []problem.Problem
		for _, p := range ps {
			if len(p.Fixes) > 0 {
				fixable = append(fixable, p)
			}
		}
		if len(fixable) != 1 || !fixable[0].Fixes[0].Safe || spanText(rmDeny, fixable[0].Span) != `"rm -rf /"` {
			t.Fatalf("%s: %+v", version, ps)
		}
		fixed := string(ApplyFix([]byte(rmDeny), fixable[0].Fixes[0]))
		after := problemsWithCode(w.checkAt(version, map[string]string{w.permissions: fixed}), w.permissions, string(problem.RuleBypassed))
		for _, p := range after {
			if strings.Contains(p.Message, "lets `rm") || len(p.Fixes) > 0 {
				t.Errorf("%s: after the fix a spelling still gets past a rule: %s\n%s", version, p.Message, fixed)
			}
		}
		if len(after) != 1 {
			t.Errorf("%s: %d CW211 after the fix, want the file's one: %+v", version, len(after), after)
		}
	}
}
