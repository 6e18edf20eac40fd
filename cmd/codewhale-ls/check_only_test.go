package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOnlyTheNamedFiles (issue 24, point 1): check FILE reports, and
// check --fix FILE writes, the named file alone, though the user config
// beside it is read for context and has a safe fix of its own; a file
// that is none of the workspace's policy files is exit 1 naming it.
func TestCheckOnlyTheNamedFiles(t *testing.T) {
	cfg, perms, ws := checkHome(t, "sandbox_mode = \"Read-Only\"\n", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git\"\naction = \"allow\"\n")
	original, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgText := string(original)
	code, out, errOut := runCLI(t, "", "check", "--fix", "--config", cfg, "--workspace", ws, perms)
	if code != 0 || !strings.Contains(out, perms+":") || strings.Contains(out, cfg) || strings.Contains(errOut, cfg) {
		t.Errorf("check --fix %s: exit %d, want 0 and the named file alone\n%s%s", perms, code, out, errOut)
	}
	if got, _ := os.ReadFile(cfg); string(got) != cfgText {
		t.Errorf("check --fix %s rewrote the config it was not given:\n%s", perms, got)
	}
	stray := filepath.Join(ws, "notes.toml")
	code, _, errOut = runCLI(t, "", "check", "--config", cfg, "--workspace", ws, stray)
	if code != 1 || !strings.Contains(errOut, stray) {
		t.Errorf("check %s: exit %d, want 1 naming it\n%s", stray, code, errOut)
	}
}
