package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckDiffersPerRelease: the same permissions.toml, with a rooted path
// rule and `*` denies, checked as Codewhale 0.9.10 and 0.10.1, gets each
// release's diagnostics (docs/codewhale/releases/0.10.0.md Part C): the
// rooted path draws CW207 only where it cannot match outside the workspace,
// the `*` is a literal word (CW204) only in 0.9.10, and a deny of only `*`
// blocks every shell command (an error-level CW203) only in 0.10.x.
func TestCheckDiffersPerRelease(t *testing.T) {
	cfg := home(t, "", `[[rules]]
tool = "read_file"
path = "/etc/shadow"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "dd * of=/dev/sda"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "*"
action = "deny"
`)
	ws := t.TempDir()
	type finding struct {
		Code     string
		Severity string
		Line     int
	}
	findings := func(version string) []finding {
		t.Helper()
		_, out, errOut := runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--format", "json", "--fail-level", "none", "--codewhale-version", version)
		var report struct {
			Files []struct {
				Path        string
				Diagnostics []struct {
					Code     string
					Severity string
					Range    struct{ Start struct{ Line int } }
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s%s", version, err, out, errOut)
		}
		var got []finding
		for _, f := range report.Files {
			if filepath.Base(f.Path) != "permissions.toml" {
				continue
			}
			for _, d := range f.Diagnostics {
				got = append(got, finding{d.Code, d.Severity, d.Range.Start.Line + 1})
			}
		}
		return got
	}
	want := map[string][]finding{
		"0.9.10": {{"CW207", "warning", 3}, {"CW204", "warning", 8}, {"CW204", "warning", 13}},
		"0.10.1": {{"CW203", "error", 13}},
	}
	for version, w := range want {
		if got := findings(version); !slices.Equal(got, w) {
			t.Errorf("--codewhale-version %s: %+v, want %+v", version, got, w)
		}
	}
}

// schema prints a release's schema: the newest by default, the named one
// with --codewhale-version before or after the name.
func TestSchemaPerRelease(t *testing.T) {
	hasNetworkKey := func(args ...string) bool {
		t.Helper()
		code, out, errOut := runCLI(t, "", append([]string{"schema"}, args...)...)
		var m struct{ Properties map[string]any }
		if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
			t.Fatalf("schema %v: exit %d, stderr %s", args, code, errOut)
		}
		_, ok := m.Properties["sandbox_network_access"]
		return ok
	}
	if !hasNetworkKey("config") {
		t.Error("the default (newest) config schema lacks sandbox_network_access")
	}
	if hasNetworkKey("config", "--codewhale-version", "0.9.10") || hasNetworkKey("--codewhale-version=0.9.10", "config") {
		t.Error("the 0.9.10 config schema has sandbox_network_access")
	}
	if !hasNetworkKey("--codewhale-version", "0.10.0", "config") {
		t.Error("the 0.10.0 config schema lacks sandbox_network_access")
	}
	for _, args := range [][]string{{}, {"settings"}, {"config", "hooks"}, {"config", "--codewhale-version", "newest"}} {
		if code, _, errOut := runCLI(t, "", append([]string{"schema"}, args...)...); code != 1 || !strings.Contains(errOut, "usage: codewhale-ls schema") {
			t.Errorf("schema %v: exit %d, stderr %s", args, code, errOut)
		}
	}
}
