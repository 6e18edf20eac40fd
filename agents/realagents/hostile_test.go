package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
)

// Where the agent stands does not choose its policy: started in a nested
// repository inside the one whose overlay turns the shell off, the shell
// stays off (issue 14 point 5; before, `ls` was denied at the root and
// allowed from the nested repository).
func TestNestedRepositoryKeepsTheOuterPolicy(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.WriteFile(filepath.Join(s.Repo, ".codewhale", "config.toml"), "allow_shell = false\n")
		s.Git("init", "-q", "sub") // what `touch sub/.git` or a submodule makes of sub/
		s.Install(s.Repo)
		sub := filepath.Join(s.Repo, "sub")
		r := s.Run(sub, a.Shell("touch shell-marker"))
		if s.Exists(filepath.Join(sub, "shell-marker")) {
			t.Errorf("started in a nested repository, the shell ran although the outer overlay turns it off; the model was told %q", r.Results[0])
		}
	})
}

// A repository's own codewhale on PATH (npx, npm run and direnv put
// node_modules/.bin there) does not choose the release that judges it:
// it is never run, and the key stays unread (issue 14 point 11; one
// printing 0.9.10, before the read deny-list, let `cat ~/.ssh/id_rsa`
// through).
func TestRepositoryCodewhaleIsNotRun(t *testing.T) {
	for _, a := range []*agentcli.Agent{agentcli.Claude, agentcli.Codex} {
		t.Run(a.Name, func(t *testing.T) {
			s := agentcli.NewSession(t, a)
			bin := filepath.Join(s.Repo, "node_modules", ".bin")
			s.WriteFile(filepath.Join(bin, "codewhale"), "#!/bin/sh\ntouch \"$0.ran\"\necho 'codewhale 0.9.10'\n")
			if err := os.Chmod(filepath.Join(bin, "codewhale"), 0o755); err != nil {
				t.Fatal(err)
			}
			s.Install(s.Repo)
			s.ExtraEnv = append(s.ExtraEnv, "PATH="+bin+string(os.PathListSeparator)+s.Node+string(os.PathListSeparator)+"/usr/local/bin:/usr/bin:/bin")
			s.Run(s.Repo, a.Shell("cat ~/.ssh/id_rsa")).NoSecret(t)
			if s.Exists(filepath.Join(bin, "codewhale.ran")) {
				t.Errorf("the repository's own codewhale was run to choose the release")
			}
		})
	}
}

// Claude Code's bookkeeping tools are decided as Codewhale's counterparts,
// not refused as unknown tools (issue 14 point 10: a denied ToolSearch
// kept deferred tools such as Glob from ever loading).
func TestClaudeBookkeepingToolsRun(t *testing.T) {
	s := agentcli.NewSession(t, agentcli.Claude)
	s.Install(s.Repo)
	r := s.Run(s.Repo,
		fakemodel.Step{Tool: "TodoWrite", Args: map[string]any{"todos": []any{map[string]any{"content": "read the README", "status": "pending", "activeForm": "Reading the README"}}}},
		fakemodel.Step{Tool: "ToolSearch", Args: map[string]any{"query": "select:Glob", "max_results": 1}},
	)
	for i, res := range r.Results {
		if strings.Contains(res, "unmapped:") || strings.Contains(res, "PreToolUse") || strings.Contains(res, "not available") {
			t.Errorf("bookkeeping call %d was refused by the hook: %q", i, res)
		}
	}
}

// Every way of writing a denied path that the issue found walking past the
// read deny-list in the real CLIs (issue 14, point 2): globs, brackets,
// brace lists, ${HOME}, a directory argument and a recursive search of a
// tree holding .env. None of the key or the .env secret reaches the model.
func TestDeniedReadsInEveryShellSpelling(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.WriteFile(filepath.Join(s.Repo, ".env"), "API_TOKEN="+agentcli.Secret+"\n")
		s.Install(s.Repo)
		var script []fakemodel.Step
		for _, c := range []string{
			"cat ~/.s?h/id_rsa", "cat ~/.[s]sh/id_rsa", "cat ~/.{ssh,x}/id_rsa", "cat ~/.*/id_rsa", "head ~/.s*/id*",
			"cat ${HOME}/.ssh/id_rsa", "tar c -C ~ .ssh", "cat .e*", "cat .en[v]", "cat {.env,x}", "grep -r API_TOKEN .",
		} {
			script = append(script, a.Shell(c))
		}
		r := s.Run(s.Repo, script...)
		r.NoSecret(t)
		for i, res := range r.Results {
			t.Logf("%s: %.160q", script[i].Args, res)
		}
	})
}

// Gemini's shell tool runs in its dir_path, relative to where Gemini
// stands: from repo/sub, ../../home/.ssh is the home's .ssh (issue 14,
// point 1).
func TestGeminiRelativeDirPath(t *testing.T) {
	s := agentcli.NewSession(t, agentcli.Gemini)
	installUser(t, s)
	s.Run(filepath.Join(s.Repo, "sub"), fakemodel.Step{Tool: "run_shell_command", Args: map[string]any{"command": "cat id_rsa", "dir_path": "../../home/.ssh"}}).NoSecret(t)
}

// A workspace-scoped deny holds for an agent started through a symlink to
// the repository (issue 14, point 5: the cwd spelled through the link no
// longer matched `workspace = "<repo>"`).
func TestSymlinkedStartKeepsWorkspaceRules(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.WriteFile(filepath.Join(s.Home, ".codewhale", "permissions.toml"),
			"[[rules]]\ntool = \"exec_shell\"\ncommand = \"touch\"\nworkspace = \""+s.Repo+"\"\naction = \"deny\"\n")
		link := filepath.Join(s.Root, "link")
		if err := os.Symlink(s.Repo, link); err != nil {
			t.Fatal(err)
		}
		// Full Access (the saved posture, docs/codewhale/pipeline.md §1):
		// ordinary approvals pass, so only the rule can stop a command.
		s.WriteFile(filepath.Join(s.Home, ".codewhale", "settings.toml"), "permission_posture = \"full-access\"\n")
		installUser(t, s)
		r := s.Run(link, a.Shell("mkdir control-dir"), a.Shell("touch link-marker"))
		// The control: a command no rule names runs, so what stops the
		// next one is the workspace rule.
		if !s.Exists(filepath.Join(s.Repo, "control-dir")) {
			t.Fatalf("control: mkdir did not run; the model was told %q", r.Results[0])
		}
		if s.Exists(filepath.Join(s.Repo, "link-marker")) {
			t.Errorf("started through a symlink, a command the repository's workspace rule denies ran; the model was told %q", r.Results[1])
		}
	})
}
