package main

import (
	"fmt"
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
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	cfgText := fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\nsandbox_mode = \"Read-Only\"\n", filepath.Join(dir, "m.toml"), filepath.Join(dir, "r.toml"))
	perms := filepath.Join(dir, "permissions.toml")
	for path, text := range map[string]string{cfg: cfgText, perms: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git\"\naction = \"allow\"\n"} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
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
