package gate

import (
	"path/filepath"
	"strings"
	"testing"
)

// A decision a permissions.toml rule made says where that rule is written,
// so a refusal can point at it (issue 24, point 8); the reason stays
// Codewhale's.
func TestLocationOfTheDecidingRule(t *testing.T) {
	perms := "# line 1\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"allow\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"make release\"\naction = \"ask\"\n"
	fx := load(t, files{config: "approval_policy = \"on-request\"\n", permissions: perms}).noFatal(t)
	want := filepath.Join(fx.home, ".codewhale", "permissions.toml")
	for _, tc := range []struct {
		command string
		line    int
	}{
		{"git push origin main", 8},
		{"make release", 13},
		{"cargo test", 3},
	} {
		d := fx.decide(t, fx.call("exec_shell", map[string]any{"command": tc.command}), Deps{})
		if d.Location == nil || d.Location.File != want || d.Location.Line != tc.line || d.Location.Problem != "" {
			t.Errorf("%s: %s at layer %d (rule %v), location %+v, want %s:%d", tc.command, d.Decision, d.Layer, d.Rule, d.Location, want, tc.line)
		}
	}
	if d := fx.decide(t, fx.call("exec_shell", map[string]any{"command": "ls"}), Deps{}); d.Location != nil {
		t.Errorf("no rule decided ls, yet location %+v", d.Location)
	}
}

// A permissions.toml Codewhale rejects denies every call with Codewhale's
// words, which name no line; the decision carries the line and the key.
func TestLocationOfTheFileThatStopsCodewhale(t *testing.T) {
	perms := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"ls\"\nacton = \"allow\"\n"
	fx := load(t, files{permissions: perms})
	d := fx.decide(t, fx.call("exec_shell", map[string]any{"command": "ls"}), Deps{})
	want := filepath.Join(fx.home, ".codewhale", "permissions.toml")
	if d.Decision != Deny || d.Location == nil || d.Location.File != want || d.Location.Line != 9 || !strings.Contains(d.Location.Problem, "acton") {
		t.Fatalf("%s (%s), location %+v, want %s:9 naming acton", d.Decision, d.Reason, d.Location, want)
	}
	if strings.Contains(d.Reason, "acton") || !strings.HasPrefix(d.Reason, "Codewhale refuses to start: Failed to parse permissions file") {
		t.Errorf("the reason is Codewhale's own text, got %q", d.Reason)
	}
}

// A config.toml that does not parse stops Codewhale too: the decision
// points at the line of the syntax error.
func TestLocationOfABrokenConfig(t *testing.T) {
	fx := load(t, files{config: "allow_shell = true\nsandbox_mode = \n"})
	d := fx.decide(t, fx.call("exec_shell", map[string]any{"command": "ls"}), Deps{})
	want := filepath.Join(fx.home, ".codewhale", "config.toml")
	if d.Decision != Deny || d.Location == nil || d.Location.File != want || d.Location.Line != 4 || d.Location.Problem == "" {
		t.Fatalf("%s (%s), location %+v, want %s:4 with the problem", d.Decision, d.Reason, d.Location, want)
	}
}
