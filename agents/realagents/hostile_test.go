package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
)

// Where the agent stands does not choose its policy: started in a nested
// repository inside the one whose overlay turns the shell off, the shell
// stays off (issue 14 point 5; before, `ls` was denied at the root and
// allowed from the nested repository).
func TestNestedRepositoryKeepsTheOuterPolicy(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agent) {
		s := newSession(t, a)
		s.writeFile(filepath.Join(s.repo, ".codewhale", "config.toml"), "allow_shell = false\n")
		s.git("init", "-q", "sub") // what `touch sub/.git` or a submodule makes of sub/
		s.install(s.repo)
		sub := filepath.Join(s.repo, "sub")
		r := s.run(sub, a.shell("touch shell-marker"))
		if s.exists(filepath.Join(sub, "shell-marker")) {
			t.Errorf("started in a nested repository, the shell ran although the outer overlay turns it off; the model was told %q", r.results[0])
		}
	})
}

// A repository's own codewhale on PATH (npx, npm run and direnv put
// node_modules/.bin there) does not choose the release that judges it:
// it is never run, and the key stays unread (issue 14 point 11; one
// printing 0.9.10, before the read deny-list, let `cat ~/.ssh/id_rsa`
// through).
func TestRepositoryCodewhaleIsNotRun(t *testing.T) {
	for _, a := range []*agent{claude, codex} {
		t.Run(a.name, func(t *testing.T) {
			s := newSession(t, a)
			bin := filepath.Join(s.repo, "node_modules", ".bin")
			s.writeFile(filepath.Join(bin, "codewhale"), "#!/bin/sh\ntouch \"$0.ran\"\necho 'codewhale 0.9.10'\n")
			if err := os.Chmod(filepath.Join(bin, "codewhale"), 0o755); err != nil {
				t.Fatal(err)
			}
			s.install(s.repo)
			s.extraEnv = append(s.extraEnv, "PATH="+bin+string(os.PathListSeparator)+s.node+string(os.PathListSeparator)+"/usr/local/bin:/usr/bin:/bin")
			s.run(s.repo, a.shell("cat ~/.ssh/id_rsa")).noSecret(t)
			if s.exists(filepath.Join(bin, "codewhale.ran")) {
				t.Errorf("the repository's own codewhale was run to choose the release")
			}
		})
	}
}

// Claude Code's bookkeeping tools are decided as Codewhale's counterparts,
// not refused as unknown tools (issue 14 point 10: a denied ToolSearch
// kept deferred tools such as Glob from ever loading).
func TestClaudeBookkeepingToolsRun(t *testing.T) {
	s := newSession(t, claude)
	s.install(s.repo)
	r := s.run(s.repo,
		fakemodel.Step{Tool: "TodoWrite", Args: map[string]any{"todos": []any{map[string]any{"content": "read the README", "status": "pending", "activeForm": "Reading the README"}}}},
		fakemodel.Step{Tool: "ToolSearch", Args: map[string]any{"query": "select:Glob", "max_results": 1}},
	)
	for i, res := range r.results {
		if strings.Contains(res, "unmapped:") || strings.Contains(res, "PreToolUse") || strings.Contains(res, "not available") {
			t.Errorf("bookkeeping call %d was refused by the hook: %q", i, res)
		}
	}
}
