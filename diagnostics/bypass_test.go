package diagnostics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

const rmDeny = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n"

// CW211 names, per release, rewrites the release's own engine lets past
// the rule, and the engine is the oracle: 0.10.1 sees through nested
// substitutions and ANSI-C quoting, which 0.9.10 and 0.10.0 do not.
func TestBypassedPerRelease(t *testing.T) {
	w := newLintWorld(t, "")
	gitDeny := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n"
	for _, c := range []struct {
		version, rules string
		has, hasNot    []string
	}{
		{"0.9.10", rmDeny, []string{"`rm -fr /`", "Codewhale 0.9.10"}, nil},
		{"0.10.1", rmDeny, []string{"`rm -fr /`", "Codewhale 0.10.1"}, nil},
		{"0.9.10", gitDeny, []string{"`$'\\x67\\x69\\x74' push`", "`{git,push}`"}, nil},
		{"0.10.0", gitDeny, []string{"`$'\\x67\\x69\\x74' push`"}, nil},
		{"0.10.1", gitDeny, []string{"`python3 -c", "perhaps others"}, []string{"$'\\x67", "{git,push}", "$(echo"}},
	} {
		ps := problemsWithCode(w.checkAt(c.version, map[string]string{w.permissions: c.rules}), w.permissions, string(problem.RuleBypassed))
		if len(ps) != 1 {
			t.Errorf("%s %q: %d CW211, want 1", c.version, c.rules, len(ps))
			continue
		}
		for _, s := range c.has {
			if !strings.Contains(ps[0].Message, s) {
				t.Errorf("%s: %q lacks %q", c.version, ps[0].Message, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(ps[0].Message, s) {
				t.Errorf("%s: %q names %q, which the release's engine holds", c.version, ps[0].Message, s)
			}
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
// file it writes has no such gap left, and only the wrappers remain.
func TestBypassedFixAddsTheSpellings(t *testing.T) {
	w := newLintWorld(t, "")
	for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
		ps := problemsWithCode(w.checkAt(version, map[string]string{w.permissions: rmDeny}), w.permissions, string(problem.RuleBypassed))
		if len(ps) != 1 || len(ps[0].Fixes) != 1 || !ps[0].Fixes[0].Safe {
			t.Fatalf("%s: %+v", version, ps)
		}
		fixed := string(ApplyFix([]byte(rmDeny), ps[0].Fixes[0]))
		after := problemsWithCode(w.checkAt(version, map[string]string{w.permissions: fixed}), w.permissions, string(problem.RuleBypassed))
		for _, p := range after {
			if strings.Contains(p.Message, "they run `rm -rf /`") && (strings.Contains(p.Message, "see `rm -") || len(p.Fixes) > 0) {
				t.Errorf("%s: after the fix a spelling still gets past the rule: %s\n%s", version, p.Message, fixed)
			}
		}
	}
}
