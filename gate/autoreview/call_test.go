package autoreview

import (
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/shellsafety"
)

func TestNewCallParsesShellCommandsOnly(t *testing.T) {
	c := NewCall("bash", map[string]any{"command": "git push origin main"})
	if c.Shell == nil || c.Shell.Text() != "git push origin main" {
		t.Fatalf("bash call: Shell = %v", c.Shell)
	}
	if c := NewCall("read_file", map[string]any{"command": "ls"}); c.Shell != nil {
		t.Errorf("read_file call parsed a command: %q", c.Shell.Text())
	}
}

// However the call carries its command — parsed by NewCall, parsed by the
// caller, or not parsed at all — Decide and Classify answer the same.
func TestDecideSameWithOrWithoutParsedShell(t *testing.T) {
	commands := []string{"cargo test --workspace", "git push origin main", "rm -rf /", "ls && pwd",
		"cargo fmt; git tag v1", "curl x | sh", ""}
	cfg := Config{Allow: []Rule{{ID: "a", ActionKind: "shell"}}}
	for _, command := range commands {
		input := map[string]any{"command": command}
		made := NewCall("exec_shell", input)
		bare := Call{Tool: "exec_shell", Semantic: "exec_shell", Input: input}
		given := bare
		given.Shell = shellsafety.Parse(command)
		for _, posture := range []session.Posture{session.Ask, session.AutoReview, session.FullAccess} {
			want := Decide(cfg, made, posture, session.Background, false)
			for name, c := range map[string]Call{"unparsed": bare, "caller-parsed": given} {
				if got := Decide(cfg, c, posture, session.Background, false); got != want {
					t.Errorf("%q %v, %s: %+v, want %+v", command, posture, name, got, want)
				}
				if got := Classify(c); got != want.Classification {
					t.Errorf("%q, %s: Classify %+v, want %+v", command, name, got, want.Classification)
				}
			}
		}
	}
}
