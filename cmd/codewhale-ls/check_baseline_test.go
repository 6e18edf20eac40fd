package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo runs git in dir with a fixed identity and no user or system
// configuration; without git the test is skipped.
func gitRepo(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found on PATH")
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestCheckBaselineFlag (issue 24, point 3): a commit that removes a
// constitution invariant passes `check` green today; against the base
// revision it is CW500 (exit 2 at --fail-level warning), --baseline none
// turns that off, and a revision the clone lacks is exit 1 naming it.
func TestCheckBaselineFlag(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "repo")
	law := filepath.Join(ws, ".codewhale", "constitution.json")
	if err := os.MkdirAll(filepath.Dir(law), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := home(t, fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n", filepath.Join(dir, "m.toml"), filepath.Join(dir, "r.toml")), "")
	write := func(text string) {
		if err := os.WriteFile(law, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRepo(t, ws, "init", "-q", "-b", "main")
	write(`{"protected_invariants": [{"text": "keep secrets", "paths": ["secrets/**"], "action": "block"}]}` + "\n")
	gitRepo(t, ws, "add", ".")
	gitRepo(t, ws, "commit", "-q", "-m", "base")
	gitRepo(t, ws, "tag", "base")
	write(`{"protected_invariants": []}` + "\n")
	gitRepo(t, ws, "commit", "-q", "-am", "drop the secrets invariant")

	args := []string{"check", "--config", cfg, "--workspace", ws, "--fail-level", "warning"}
	code, out, errOut := runCLI(t, "", append(args, "--baseline", "base")...)
	if code != 2 || !strings.Contains(out, law+":1:1: warning CW500 loosens policy: the invariant \"keep secrets\" was removed") {
		t.Errorf("--baseline base: exit %d, want 2 with CW500\n%s%s", code, out, errOut)
	}
	for _, extra := range [][]string{nil, {"--baseline", "none"}} {
		if code, out, errOut := runCLI(t, "", append(args, extra...)...); code != 0 || strings.Contains(out, "CW500") {
			t.Errorf("check %v: exit %d, want 0 without CW500\n%s%s", extra, code, out, errOut)
		}
	}
	for _, rev := range []string{"origin/main", ""} {
		code, _, errOut := runCLI(t, "", append(args, "--baseline", rev)...)
		if code != 1 || !strings.Contains(errOut, "--baseline") || !strings.Contains(errOut, rev) {
			t.Errorf("--baseline %q: exit %d, want 1 naming it\n%s", rev, code, errOut)
		}
	}
}
