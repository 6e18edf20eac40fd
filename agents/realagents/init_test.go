package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitLetsTheAgentBuildButNotForcePush: with a fresh home (no
// Codewhale file at all) and no editor, `hook install` then `init` let a
// real agent run the repository's `make test` and still refuse a force
// push (issue 24, point 6). Before init the same `make test` is refused,
// as nobody can approve it.
func TestInitLetsTheAgentBuildButNotForcePush(t *testing.T) {
	for _, a := range []*agent{codex, claude} {
		t.Run(a.name, func(t *testing.T) {
			s := newSession(t, a)
			for _, f := range []string{"config.toml", "permissions.toml"} {
				if err := os.Remove(filepath.Join(s.home, ".codewhale", f)); err != nil {
					t.Fatal(err)
				}
			}
			s.writeFile(filepath.Join(s.repo, "Makefile"), "test:\n\ttouch test-ran\n")
			remote := filepath.Join(s.root, "remote.git")
			s.git("init", "-q", "--bare", remote)
			s.git("remote", "add", "origin", remote)

			out := s.codewhaleLS(s.repo, "hook", "install", a.name, "--yes")
			if !strings.Contains(out, "no Codewhale policy exists") || !strings.Contains(out, "codewhale-ls init") {
				t.Errorf("hook install did not say that no policy exists:\n%s", out)
			}
			if a.afterInstall != nil {
				a.afterInstall(s)
			}
			marker := filepath.Join(s.repo, "test-ran")
			r := s.run(s.repo, a.shell("make test"))
			if s.exists(marker) {
				t.Fatalf("control: before init, make test ran with nobody to approve it; the model was told %q", r.results)
			}

			out = s.codewhaleLS(s.repo, "init", "--yes")
			if !strings.Contains(out, "make, make test (Makefile)") {
				t.Errorf("init did not read the Makefile:\n%s", out)
			}
			r = s.run(s.repo, a.shell("make test"), a.shell("git push --force origin HEAD:main"))
			if !s.exists(marker) {
				t.Errorf("after init, make test did not run; the model was told %q", r.results[0])
			}
			if err := exec.Command("git", "--git-dir", remote, "rev-parse", "--verify", "-q", "refs/heads/main").Run(); err == nil {
				t.Errorf("after init, the force push ran; the model was told %q", r.results[1])
			}
			if !strings.Contains(r.results[1], "git push --force") {
				t.Errorf("the model was not told which rule denied the push: %q", r.results[1])
			}
		})
	}
}

// codewhaleLS runs codewhale-ls with args in dir, in the session's environment,
// and returns its stdout and stderr; a failure ends the test.
func (s *session) codewhaleLS(dir string, args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.hook, args...)
	cmd.Dir = dir
	cmd.Env = s.baseEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("codewhale-ls %v: %v\n%s", args, err, out)
	}
	return string(out)
}
