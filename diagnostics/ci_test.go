package diagnostics

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// TestCheckInCI (issue 24, point 4): a CI run reports the repository's
// files only, without the CW700 that says this machine's agent has no hook
// or the CW303 that says this machine does not trust the workspace, and
// Ignore leaves out the codes it names.
func TestCheckInCI(t *testing.T) {
	w := newLintWorld(t, "modle = \"x\"\n") // CW002 in the home's config
	claude := filepath.Join(w.ws, ".claude", "settings.json")
	w.write(claude, `{"hooks": {}}`)
	w.write(w.constitution, `{"protected_invariants": [{"text": "advisory"}]}`) // CW401
	hooksFile := filepath.Join(w.ws, ".codewhale", "hooks.toml")
	w.write(hooksFile, "") // CW303: this machine's config does not trust the workspace
	paths := func(res *Result) (out []string) {
		for _, f := range res.Files {
			if len(f.Problems) > 0 {
				out = append(out, f.Path)
			}
		}
		return out
	}
	if got := paths(Check(Input{Options: w.options(nil)})); !slices.Contains(got, w.config) || !slices.Contains(got, claude) || !slices.Contains(got, hooksFile) {
		t.Fatalf("on this machine: findings in %v, want the home's config, the unhooked agent and the untrusted hooks", got)
	}
	if got := paths(Check(Input{Options: w.options(nil), CI: true})); !slices.Equal(got, []string{w.constitution}) {
		t.Errorf("in CI: findings in %v, want the repository's constitution alone", got)
	}
	if got := paths(Check(Input{Options: w.options(nil), CI: true, Ignore: []problem.Code{problem.InvariantAdvisory}})); len(got) != 0 {
		t.Errorf("in CI ignoring CW401: findings in %v", got)
	}
}

func TestInCI(t *testing.T) {
	for env, want := range map[string]bool{"": false, "CI=true": true, "CI=1": true, "CI=false": false, "GITHUB_ACTIONS=true": true, "GITLAB_CI=true": true} {
		name, value, _ := strings.Cut(env, "=")
		if got := InCI(func(n string) string {
			if n == name {
				return value
			}
			return ""
		}); got != want {
			t.Errorf("%s: InCI %t, want %t", env, got, want)
		}
	}
}

func TestParseCodes(t *testing.T) {
	if got, err := ParseCodes("CW700, cw205"); err != nil || !slices.Equal(got, []problem.Code{problem.AgentUnhooked, problem.AllowRedirections}) {
		t.Errorf("ParseCodes: %v, %v", got, err)
	}
	for _, bad := range []string{"", "CW999", "CW700,", "W700"} {
		if _, err := ParseCodes(bad); err == nil {
			t.Errorf("ParseCodes(%q) accepted", bad)
		}
	}
}
