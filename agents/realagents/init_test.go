package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
)

// TestInitLetsTheAgentBuildButNotForcePush: with a fresh home (no
// Codewhale file at all) and no editor, `hook install` then `init` let a
// real agent run the repository's `make test` and still refuse a force
// push (issue 24, point 6). Before init the same `make test` is refused,
// as nobody can approve it.
func TestInitLetsTheAgentBuildButNotForcePush(t *testing.T) {
	for _, a := range []*agentcli.Agent{agentcli.Codex, agentcli.Claude} {
		t.Run(a.Name, func(t *testing.T) {
			s := agentcli.NewSession(t, a)
			for _, f := range []string{"config.toml", "permissions.toml"} {
				if err := os.Remove(filepath.Join(s.Home, ".codewhale", f)); err != nil {
					t.Fatal(err)
				}
			}
			s.WriteFile(filepath.Join(s.Repo, "Makefile"), "test:\n\ttouch test-ran\n")
			remote := filepath.Join(s.Root, "remote.git")
			s.Git("init", "-q", "--bare", remote)
			s.Git("remote", "add", "origin", remote)

			out := s.CodewhaleLS(s.Repo, "hook", "install", a.Name, "--yes")
			if !strings.Contains(out, "no Codewhale policy exists") || !strings.Contains(out, "codewhale-ls init") {
				t.Errorf("hook install did not say that no policy exists:\n%s", out)
			}
			if a.AfterInstall != nil {
				a.AfterInstall(s)
			}
			marker := filepath.Join(s.Repo, "test-ran")
			r := s.Run(s.Repo, a.Shell("make test"))
			if s.Exists(marker) {
				t.Fatalf("control: before init, make test ran with nobody to approve it; the model was told %q", r.Results)
			}

			out = s.CodewhaleLS(s.Repo, "init", "--yes")
			if !strings.Contains(out, "make, make test (Makefile)") {
				t.Errorf("init did not read the Makefile:\n%s", out)
			}
			r = s.Run(s.Repo, a.Shell("make test"), a.Shell("git push --force origin HEAD:main"))
			if !s.Exists(marker) {
				t.Errorf("after init, make test did not run; the model was told %q", r.Results[0])
			}
			if err := exec.Command("git", "--git-dir", remote, "rev-parse", "--verify", "-q", "refs/heads/main").Run(); err == nil {
				t.Errorf("after init, the force push ran; the model was told %q", r.Results[1])
			}
			if !strings.Contains(r.Results[1], "git push --force") {
				t.Errorf("the model was not told which rule denied the push: %q", r.Results[1])
			}
		})
	}
}
