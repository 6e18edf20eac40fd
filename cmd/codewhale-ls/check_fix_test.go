package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// TestCheckFix: check --fix writes the safe fix of a finding to the file
// on disk (its mode kept), reports only what remains with check's exit code, leaves a
// file whose finding has no safe fix byte for byte as it was (never
// rewritten), and a second run changes nothing.
func TestCheckFix(t *testing.T) {
	// CW602 has a safe fix (write "read-only"); the CW002 rename is a
	// guess, not safe. CW205 (info) has no fix at all.
	permsText := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git\"\naction = \"allow\"\n"
	cfg, perms, ws := checkHome(t, "sandbox_mode = \"Read-Only\"\nmodle = \"x\"\n", permsText)
	if err := os.Chmod(cfg, 0o640); err != nil { // a mode the fix must keep
		t.Fatal(err)
	}
	original, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	permsBefore, _ := os.Stat(perms)
	args := []string{"check", "--fix", "--config", cfg, "--workspace", ws, "--fail-level", "warning"}

	code, out, errOut := runCLI(t, "", args...)
	if code != 2 || strings.Contains(out, "CW602") || !strings.Contains(out, "warning CW002") || !strings.Contains(out, "info CW205") {
		t.Errorf("check --fix: exit %d, want 2 with CW002 and CW205 left and CW602 fixed\n%s%s", code, out, errOut)
	}
	left := "; 1 left: CW002 line 4 (not safe: `model` is a guess at the key you meant); run with --unsafe-fixes to apply the fixes that are not safe, after reading them\n"
	if want := "codewhale-ls check --fix: fixed 1 problem in " + cfg + left; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	fixed, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(original), `"Read-Only"`, `"read-only"`, 1); string(fixed) != want {
		t.Errorf("config after --fix:\n%s\nwant:\n%s", fixed, want)
	}
	if fi, err := os.Stat(cfg); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("config mode %v, want 0640 kept (%v)", fi.Mode().Perm(), err)
	}
	if got, _ := os.ReadFile(perms); string(got) != permsText {
		t.Errorf("permissions.toml without a safe fix changed:\n%s", got)
	}
	if after, _ := os.Stat(perms); !after.ModTime().Equal(permsBefore.ModTime()) {
		t.Error("permissions.toml without a safe fix was rewritten")
	}

	code, out2, errOut := runCLI(t, "", args...)
	if code != 2 || out2 != out || errOut != "codewhale-ls check --fix: fixed 0 problems in "+cfg+left {
		t.Errorf("second check --fix: exit %d, stderr %q, report\n%s\nwant the first run's\n%s", code, errOut, out2, out)
	}
	if again, _ := os.ReadFile(cfg); !bytes.Equal(again, fixed) {
		t.Errorf("second check --fix changed the config:\n%s", again)
	}
}

// TestCheckUnsafeFixes (issue 24, point 5): --unsafe-fixes applies, with
// --fix, the fixes check --fix leaves as not safe, as Ruff's does, and
// says so; without --fix it writes nothing and is a usage error.
func TestCheckUnsafeFixes(t *testing.T) {
	cfg, _, ws := checkHome(t, "sandbox_mode = \"Read-Only\"\nmodle = \"x\"\n", "")
	original, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := string(original)
	code, _, errOut := runCLI(t, "", "check", "--unsafe-fixes", "--config", cfg, "--workspace", ws)
	if got, _ := os.ReadFile(cfg); code != 1 || string(got) != text || !strings.Contains(errOut, "only with --fix") {
		t.Errorf("--unsafe-fixes alone: exit %d, stderr %q, file\n%s", code, errOut, got)
	}
	code, out, errOut := runCLI(t, "", "check", "--fix", "--unsafe-fixes", "--config", cfg, "--workspace", ws, "--fail-level", "warning")
	if want := "codewhale-ls check --fix: fixed 2 problems in " + cfg + "\n"; code != 0 || errOut != want {
		t.Errorf("--fix --unsafe-fixes: exit %d, stderr %q, want %q\n%s", code, errOut, want, out)
	}
	want := strings.NewReplacer(`"Read-Only"`, `"read-only"`, "modle", "model").Replace(text)
	if got, _ := os.ReadFile(cfg); string(got) != want {
		t.Errorf("after --fix --unsafe-fixes:\n%s\nwant:\n%s", got, want)
	}
}

// TestCheckFixKeepsAConcurrentSave: a file saved between the check and the
// write keeps the save; --fix says so and fails (exit 1 in check).
func TestCheckFixKeepsAConcurrentSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	checked := []byte("sandbox_mode = \"Read-Only\"\n")
	saved := "sandbox_mode = \"Read-Only\"\nmodel = \"x\"\n"
	if err := os.WriteFile(path, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	fix := problem.Fix{Safe: true, Edits: []problem.Edit{{Span: problem.Span{Start: 15, End: 26}, NewText: `"read-only"`}}}
	var stderr bytes.Buffer
	files := []*diagnostics.FileResult{{Path: path, Src: checked, Problems: []problem.Problem{{Code: problem.ValueDoesNotRestrict, Fixes: []problem.Fix{fix}}}}}
	if _, ok := fixFiles(files, &stderr, false); ok || !strings.Contains(stderr.String(), "changed since it was checked") {
		t.Errorf("fixFiles over a file saved meanwhile: stderr %q", stderr.String())
	}
	if got, _ := os.ReadFile(path); string(got) != saved {
		t.Errorf("the save was lost:\n%s", got)
	}
}

// TestCheckFixNamesOnlyWhatIsLeft (issue 24, point 5): a problem another
// fix settled is not named as left. CW211's added rules for rm's flag
// spellings end CW204's slip, whose own (unsafe) wildcard fix was not
// applied: the line says only what was fixed.
func TestCheckFixNamesOnlyWhatIsLeft(t *testing.T) {
	cfg, perms, ws := checkHome(t, "", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n")
	code, out, errOut := runCLI(t, "", "check", "--fix", "--codewhale-version", "0.10.1", "--config", cfg, "--workspace", ws)
	if want := "codewhale-ls check --fix: fixed 1 problem in " + perms + "\n"; code != 0 || errOut != want || strings.Contains(out, "CW204") {
		t.Errorf("exit %d, stderr %q, want %q\n%s", code, errOut, want, out)
	}
}

// checkHome is a hermetic Codewhale home for check: config.toml holding
// config after managed and requirements paths of its own (never the
// machine's), permissions.toml holding permissions (none when ""), both
// 0600, and an empty workspace beside them.
func checkHome(t *testing.T, config, permissions string) (cfg, perms, ws string) {
	t.Helper()
	dir := t.TempDir()
	ws = filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(dir, "config.toml")
	hermetic := fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n", filepath.Join(dir, "m.toml"), filepath.Join(dir, "r.toml"))
	if err := os.WriteFile(cfg, []byte(hermetic+config), 0o600); err != nil {
		t.Fatal(err)
	}
	perms = filepath.Join(dir, "permissions.toml")
	if permissions != "" {
		if err := os.WriteFile(perms, []byte(permissions), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, perms, ws
}
