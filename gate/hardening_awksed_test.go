package gate

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// TestHardeningHoldsAwkAndSed: awk and sed lines that run a denied
// command, held under Full Access at every release (issue 23, points 10
// and 12).
func TestHardeningHoldsAwkAndSed(t *testing.T) {
	forms := []string{
		`awk 'BEGIN{system("git" " push")}'`,
		`awk 'BEGIN{print "push" | "xargs git"}'`,
		`awk 'BEGIN{print "git push" | "sh"}'`,
		`awk 'BEGIN{"git push" | getline}'`,
		`awk -v c='git push' 'BEGIN{system(c)}'`,
		`awk 'BEGIN{printf "cargo publish\n" | "bash"}'`,
		`echo 'BEGIN{system("git push")}' > p.awk; awk -f p.awk`,
		`awk -f - <<< 'BEGIN{system("git push")}'`,
		`sed -n --expression='1e git push' f`,
		`sed -e'1e git push' f`,
		`sed '1,1e git push' f`,
		`sed 's/x/git push/e' f`,
		`sed -f <(echo 1e git push) f`,
	}
	for _, version := range hardeningReleases {
		fx := load(t, files{permissions: hardeningRules, git: true, release: version}).noFatal(t)
		for _, cmd := range forms {
			req := withPosture(fx.call("exec_shell", map[string]any{"command": cmd}), session.FullAccess)
			if d := fx.decide(t, req, Deps{}); d.Decision == Allow {
				t.Errorf("%s: hardened, %q is allowed: %s", version, short(cmd), d.Reason)
			}
		}
	}
}

// TestHardeningRefusalNamesNoEmptyRule (issue 23, point 13): 0.10.1
// refuses a bare `sh` itself, with no rule, when deny rules are in force
// (its words are a script read from a pipe). awk printing into sh hides
// such an sh; the layer denied it naming an empty rule. Now a rule denying
// another hidden command is named, and a refusal alone is denied as the
// release denies `echo … | sh`, in its own words.
func TestHardeningRefusalNamesNoEmptyRule(t *testing.T) {
	fx := load(t, files{permissions: hardeningRules, git: true, release: "0.10.1"}).noFatal(t)
	for _, posture := range []session.Posture{session.Ask, session.FullAccess} {
		decide := func(cmd string, deps Deps) Decision {
			return fx.decide(t, withPosture(fx.call("exec_shell", map[string]any{"command": cmd}), posture), deps)
		}
		d := decide(`awk 'BEGIN{print "git push" | "sh"}'`, Deps{})
		if d.Decision != Deny || d.Rule == nil || *d.Rule != "git push" || strings.Contains(d.Reason, "''") {
			t.Errorf("%s: awk printing git push into sh: %s, rule %v: %s", posture, d.Decision, d.Rule, d.Reason)
		}
		d = decide(`awk 'BEGIN{print "ls" | "sh"}'`, Deps{})
		own := decide(`echo ls | sh`, Deps{Exact: true})
		if d.Decision != own.Decision || d.Layer != own.Layer || d.Rule != nil || strings.Contains(d.Reason, "''") || !strings.Contains(d.Reason, own.Reason) {
			t.Errorf("%s: awk printing ls into sh: %s at %d (%s), want what 0.10.1 gives echo ls | sh: %s at %d (%s)", posture, d.Decision, d.Layer, d.Reason, own.Decision, own.Layer, own.Reason)
		}
	}
}
