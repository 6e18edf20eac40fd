package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// init keeps this package's check runs off the CI path though the tests
// themselves run in CI, where CI=true is set (diagnostics.InCI): a test
// asks for a CI run with --ci or t.Setenv. It runs before TestMain, so the
// child processes the tests start inherit it too.
func init() {
	for _, name := range []string{"CI", "GITHUB_ACTIONS", "GITLAB_CI"} {
		os.Unsetenv(name)
	}
}

// TestCheckInCI (issue 24, point 4): a CI run (--ci, or CI=true as the
// services set it) checks the repository: the home's files and CW700 for
// an agent this machine has not hooked are left out, while a setting the
// repository commits that turns the agents' hooks off is still reported;
// --ignore leaves out the codes it names; an unknown code or a
// --workspace that is not there is exit 1 naming it, not a green run.
func TestCheckInCI(t *testing.T) {
	tempHome(t)
	ws := t.TempDir()
	writeClaudeSettings(t, ws)
	cfg := home(t, "", "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	args := []string{"check", "--config", cfg, "--workspace", ws, "--fail-level", "warning"}

	if code, out, _ := runCLI(t, "", args...); code != 3 || !strings.Contains(out, "CW700") {
		t.Fatalf("on this machine: exit %d, want 3 with the home's CW002 and CW700\n%s", code, out)
	}
	code, out, errOut := runCLI(t, "", append(args, "--ci")...)
	if code != 0 || strings.Contains(out, "CW") || !strings.HasSuffix(out, "0 files checked: 0 errors, 0 warnings, 0 infos\n") {
		t.Errorf("--ci: exit %d, want 0 with nothing of this machine's\n%s%s", code, out, errOut)
	}
	t.Setenv("CI", "true")
	if code2, out2, _ := runCLI(t, "", args...); code2 != code || out2 != out {
		t.Errorf("CI=true: exit %d, want the --ci run's %d\n%s", code2, code, out2)
	}

	local := filepath.Join(ws, ".claude", "settings.local.json")
	if err := os.WriteFile(local, []byte(`{"disableAllHooks": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, "", args...); code != 2 || !strings.Contains(out, local+":1:2: warning CW700") || !strings.HasSuffix(out, "1 file checked: 0 errors, 1 warning, 0 infos\n") {
		t.Errorf("the repository's disableAllHooks in CI: exit %d, want 2\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "", append(args, "--ignore", "cw205,CW700")...); code != 0 || strings.Contains(out, "CW700") {
		t.Errorf("--ignore CW700: exit %d, want 0\n%s", code, out)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ignore", "CW700,CW999"}, `--ignore: "CW999"`},
		{[]string{"--workspace", filepath.Join(ws, "missing")}, "--workspace " + filepath.Join(ws, "missing")},
	} {
		code, _, errOut := runCLI(t, "", append(args, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, want 1 naming it\n%s", tc.args, code, errOut)
		}
	}
}
