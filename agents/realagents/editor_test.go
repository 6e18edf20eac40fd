package realagents

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/editortest"
)

// startEditor is `codewhale-ls serve` for the session's repository with a
// scripted editor (internal/editortest) that answers every approval prompt
// with one choice. The agents' hooks find it through the approval socket
// under XDG_RUNTIME_DIR, which the session gives every process.
func startEditor(t *testing.T, s *agentcli.Session, answer string) *editortest.Editor {
	t.Helper()
	server := exec.Command(s.Hook, "serve", "--stdio")
	server.Dir = s.Repo
	server.Env = s.BaseEnv()
	return editortest.Start(t, server, s.Repo, s.Root, map[string]any{"approvals": "codewhale"}, editortest.Choice(answer))
}

// A call Codewhale asks a human about (a shell command that writes, in
// the Ask posture; a file tool's write in the workspace needs nobody) goes
// to the editor when one serves the workspace, and its answer is what happens:
// once writes the file, deny does not and the model is told; without an
// editor nobody can approve it and nothing is written.
func TestEditorAnswers(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		for _, answer := range []string{"once", "deny", "no editor"} {
			t.Run(strings.ReplaceAll(answer, " ", "-"), func(t *testing.T) {
				s := agentcli.NewSession(t, a)
				installUser(t, s)
				var e *editortest.Editor
				if answer != "no editor" {
					e = startEditor(t, s, answer)
				}
				target := filepath.Join(s.Repo, "edited.txt")
				r := s.Run(s.Repo, a.Shell("touch edited.txt"))
				if written := s.Exists(target); written != (answer == "once") {
					t.Errorf("%s: edited.txt written = %v; the model was told %q", answer, written, r.Results[0])
				}
				if e == nil {
					return
				}
				prompted := e.Prompts()
				if len(prompted) != 1 {
					t.Fatalf("the editor was prompted %d times: %v", len(prompted), prompted)
				}
				if prompted[0]["agent"] != a.Name {
					t.Errorf("the prompt does not name the agent %s: %v", a.Name, prompted[0])
				}
			})
		}
	})
}
