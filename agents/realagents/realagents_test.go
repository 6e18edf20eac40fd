package realagents

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
)

// eachAgent runs body once per agent, as a subtest named after the agent
// (go test -run 'TestDeniedCall/codex').
func eachAgent(t *testing.T, body func(t *testing.T, a *agentcli.Agent)) {
	for _, a := range agentcli.All {
		t.Run(a.Name, func(t *testing.T) { body(t, a) })
	}
}

// installUser installs the hook at user level, which holds a session
// started in any directory (docs/agents.md, "Installing the hook").
func installUser(t *testing.T, s *agentcli.Session) {
	t.Helper()
	s.Install(s.Repo, "--user")
}

// An allowed call runs and its output reaches the model.
func TestAllowedCall(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.Install(s.Repo)
		script := []fakemodel.Step{a.Shell("cat README.md")}
		if a.Read != nil {
			script = append(script, a.Read("README.md")) // relative: the agent's cwd
		}
		r := s.Run(s.Repo, script...)
		for i, res := range r.Results {
			if !strings.Contains(res, agentcli.Readme) {
				t.Errorf("call %d was allowed but its output did not reach the model: %q", i, res)
			}
		}
	})
}

// A denied shell command does not run (the marker it would create after
// the denied part is not made) and the model is told why.
func TestDeniedCall(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.Install(s.Repo)
		r := s.Run(s.Repo, a.Shell("cargo publish --dry-run; touch denied-marker"))
		if s.Exists(filepath.Join(s.Repo, "denied-marker")) {
			t.Errorf("the denied command ran: denied-marker exists; the model was told %q", r.Results[0])
		}
		if !strings.Contains(r.Results[0], "cargo publish") {
			t.Errorf("the model was not told the deny's reason: %q", r.Results[0])
		}
		// Who refused, and the rule's line (issue 24, point 8).
		if !strings.Contains(r.Results[0], "codewhale-ls") || !strings.Contains(r.Results[0], "permissions.toml:") {
			t.Errorf("the model was not told who refused and where the rule is: %q", r.Results[0])
		}
	})
}

// The private key in the home is read neither by a shell command nor by
// the agent's read tool.
func TestKeyNotRead(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.Install(s.Repo)
		script := []fakemodel.Step{a.Shell("cat ~/.ssh/id_rsa")}
		if a.Read != nil {
			script = append(script, a.Read(filepath.Join(s.Home, ".ssh", "id_rsa")))
		}
		s.Run(s.Repo, script...).NoSecret(t)
	})
}

// A glob that the shell expands to the key is no way around the deny.
func TestKeyNotReadThroughGlob(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.Install(s.Repo)
		s.Run(s.Repo, a.Shell("cat ~/.s*h/id_rsa"), a.Shell("cat ~/.ssh/id_*"), a.Shell("cat $HOME/.ss?/id_rsa")).NoSecret(t)
	})
}

// Relative paths are the agent's cwd's: from repo/sub, ../../home is the
// home. A relative read inside the repository still works.
func TestRelativePathsFromSubdir(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		installUser(t, s)
		sub := filepath.Join(s.Repo, "sub")
		script := []fakemodel.Step{a.Shell("cat inner.txt"), a.Shell("cat ../../home/.ssh/id_rsa")}
		if a.Read != nil {
			script = append(script, a.Read("../../home/.ssh/id_rsa"))
		}
		r := s.Run(sub, script...)
		if !strings.Contains(r.Results[0], "inner") {
			t.Errorf("cat inner.txt from repo/sub: %q", r.Results[0])
		}
		r.NoSecret(t)
	})
}

// The hook installed as the docs say, without --project or --user, holds
// a session started in a subdirectory of the repository.
func TestDefaultInstallHoldsSubdir(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		s.Install(s.Repo)
		sub := filepath.Join(s.Repo, "sub")
		r := s.Run(sub, a.Shell("cargo publish --dry-run; touch denied-marker"))
		if s.Exists(filepath.Join(sub, "denied-marker")) {
			t.Errorf("started in repo/sub, the denied command ran: the model was told %q", r.Results[0])
		}
	})
}

// autoReview sets the Auto-Review posture (approval_policy = "auto",
// docs/codewhale/pipeline.md §1), under which a write in the workspace
// needs nobody: only the repository law and the hook-settings guard stop
// the writes below, so the tests show those and not a missing human.
func autoReview(s *agentcli.Session) {
	s.WriteFile(filepath.Join(s.Home, ".codewhale", "config.toml"),
		"approval_policy = \"auto\"\nsandbox_mode = \"workspace-write\"\nallow_shell = true\n")
}

// The constitution's secrets/** holds a write named relative to an agent
// started in repo/secrets (key.txt there is secrets/key.txt).
func TestConstitutionHoldsRelativeWrite(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		autoReview(s)
		installUser(t, s)
		// The same write elsewhere goes through: the posture lets writes
		// run, so what stops the next one is the law.
		s.Run(s.Repo, a.Write("sub/allowed.txt", "fine\n"))
		if !s.Exists(filepath.Join(s.Repo, "sub", "allowed.txt")) {
			t.Fatalf("control: a write under auto-review did not happen; the model was told %q", s.Model.Results())
		}
		secrets := filepath.Join(s.Repo, "secrets")
		r := s.Run(secrets, a.Write("key.txt", "leaked\n"))
		if s.Exists(filepath.Join(secrets, "key.txt")) {
			t.Errorf("started in repo/secrets, key.txt was written past the constitution; the model was told %q", r.Results)
		}
	})
}

// An agent cannot switch its own hooks off: Claude Code's
// .claude/settings.local.json with disableAllHooks is not written without
// a human, even where other writes need nobody.
func TestHookSettingsNeedHuman(t *testing.T) {
	s := agentcli.NewSession(t, agentcli.Claude)
	autoReview(s)
	s.Install(s.Repo, "--user")
	local := filepath.Join(s.Repo, ".claude", "settings.local.json")
	r := s.Run(s.Repo, agentcli.Claude.Write(".claude/settings.local.json", "{\"disableAllHooks\": true}\n"), agentcli.Claude.Shell("cargo publish --dry-run; touch denied-marker"))
	if s.Exists(local) {
		t.Errorf("the agent wrote its own hook settings: %s exists; the model was told %q", local, r.Results[0])
	}
	if s.Exists(filepath.Join(s.Repo, "denied-marker")) {
		t.Errorf("after the settings write, a denied command ran")
	}
}

// Gemini CLI names an MCP tool mcp_<server>_<tool> in its BeforeTool
// event; the hook judges it as Codewhale's MCP tool of that name (the
// decision log says which tool was decided), not as an unknown tool.
func TestGeminiMCPToolName(t *testing.T) {
	s := agentcli.NewSession(t, agentcli.Gemini)
	s.Install(s.Repo, "--user")
	s.Run(s.Repo, fakemodel.Step{Tool: "*" + agentcli.FakeMCPTool, Args: map[string]any{"note": "hi"}})
	if s.Exists(filepath.Join(s.Root, "mcp-marker")) {
		t.Errorf("the MCP call ran, when Codewhale asks for an MCP tool and no editor answers")
	}
	want := "mcp_" + agentcli.FakeMCPServer + "_" + agentcli.FakeMCPTool
	if tools := decided(t, s); len(tools) != 1 || tools[0] != want {
		t.Errorf("the hook decided %q, want [%s]", tools, want)
	}
}

// An MCP tool's call, which Codewhale leaves to a human, does not run
// without one: the fake server's marker is not made. (Codex offers MCP
// tools only through tool_search, so it has no case here.)
func TestMCPCallNeedsHuman(t *testing.T) {
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		if a == agentcli.Codex {
			t.Skip("Codex 0.169.1 offers MCP tools only through tool_search; not scripted here")
		}
		s := agentcli.NewSession(t, a)
		s.Install(s.Repo)
		if a.MCPArgs != nil {
			s.ExtraArgs = a.MCPArgs(s)
		}
		// Claude Code defers MCP tools (they are not in the request's tool
		// list, ToolSearch finds them) yet runs a call by the full name.
		tool := "*" + agentcli.FakeMCPTool
		if a == agentcli.Claude {
			tool = "mcp__" + agentcli.FakeMCPServer + "__" + agentcli.FakeMCPTool
		}
		r := s.Run(s.Repo, fakemodel.Step{Tool: tool, Args: map[string]any{"note": "hi"}})
		if s.Exists(filepath.Join(s.Root, "mcp-marker")) {
			t.Errorf("the MCP call ran without a human; the model was told %q", r.Results[0])
		}
		if tools := decided(t, s); len(tools) != 1 {
			t.Errorf("the hook decided %q, want the one MCP call", tools)
		} else {
			t.Logf("%s: the MCP call was decided as %s", a.Name, tools[0])
		}
	})
}

// decided returns the tools of the decision log's entries (docs/codewhale/
// contract.md §4) that the agent's hook logged.
func decided(t *testing.T, s *agentcli.Session) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(s.Home, ".codewhale", "codewhale-ls", "decisions.jsonl"))
	if err != nil {
		t.Fatalf("the decision log: %v", err)
	}
	defer f.Close()
	var tools []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Tool  string `json:"tool"`
			Agent string `json:"agent"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Agent == s.A.Name {
			tools = append(tools, e.Tool)
		}
	}
	return tools
}

// Copilot CLI's --deny-tool stands whatever the hook answers: an allow
// from the hook must not run a tool the user denied on the command line.
func TestCopilotDenyToolStands(t *testing.T) {
	// Measured with 1.0.102: a hook's "allow" runs a tool that
	// --deny-tool denies, while a silent exit 0 leaves the deny standing.
	a := *agentcli.Copilot
	a.Args = func(s *agentcli.Session, prompt string) []string {
		return append(agentcli.Copilot.Args(s, prompt), "--deny-tool=shell(ls)")
	}
	s := agentcli.NewSession(t, &a)
	s.Install(s.Repo)
	r := s.Run(s.Repo, a.Shell("ls"))
	if strings.Contains(r.Results[0], "README.md") || !strings.Contains(r.Results[0], "denied") {
		t.Errorf("ls ran though the user denied shell(ls): the model was told %q", r.Results[0])
	}
}

// The agent's own deny settings stand when the hook allows: Claude Code's
// permissions.deny refuses a command Codewhale lets run (measured with
// 2.1.332: the deny rule wins over a hook's "allow").
func TestClaudeDenyRuleStands(t *testing.T) {
	s := agentcli.NewSession(t, agentcli.Claude)
	s.WriteJSON(filepath.Join(s.Home, ".claude", "settings.json"), map[string]any{
		"permissions": map[string]any{"deny": []string{"Bash(cat:*)"}},
	})
	s.Install(s.Repo, "--user")
	r := s.Run(s.Repo, agentcli.Claude.Shell("cat README.md"))
	if strings.Contains(r.Results[0], agentcli.Readme) {
		t.Errorf("cat ran though Claude's settings deny it: the model was told %q", r.Results[0])
	}
}

// Copilot CLI on a GPT-5 model writes with a freeform apply_patch whose
// toolArgs is the patch text, not JSON: the hook reads the files it names.
// A patch adding secrets/key.txt is held by the constitution, while the
// same patch elsewhere goes through.
func TestCopilotGPT5Patch(t *testing.T) {
	a := *agentcli.Copilot
	a.Env = func(s *agentcli.Session) []string { return append(agentcli.Copilot.Env(s), "COPILOT_MODEL=gpt-5.5") }
	s := agentcli.NewSession(t, &a)
	autoReview(s)
	s.Install(s.Repo)
	patch := func(path string) fakemodel.Step {
		return fakemodel.Step{Tool: "apply_patch", Raw: "*** Begin Patch\n*** Add File: " + path + "\n+x\n*** End Patch\n"}
	}
	r := s.Run(s.Repo, patch("sub/allowed.txt"), patch("secrets/key.txt"))
	if !s.Exists(filepath.Join(s.Repo, "sub", "allowed.txt")) {
		t.Errorf("control: the patch outside secrets/ was not applied; the model was told %q", r.Results[0])
	}
	if s.Exists(filepath.Join(s.Repo, "secrets", "key.txt")) {
		t.Errorf("the patch adding secrets/key.txt was applied past the constitution; the model was told %q", r.Results[1])
	}
}

// No agent switches off its own hook, or chooses the editor's server,
// with one write that the posture lets through (issue 14, point 4): its
// own settings, another agent's, and the editor settings that name the
// codewhale-ls binary, by its write tool and by a shell redirection.
func TestNoAgentWritesTheHooksSettings(t *testing.T) {
	own := map[string]string{
		"claude-code": ".claude/settings.local.json",
		"gemini-cli":  ".gemini/settings.json",
		"codex":       ".codex/hooks.json",
		"copilot-cli": ".github/hooks/off.json",
	}
	eachAgent(t, func(t *testing.T, a *agentcli.Agent) {
		s := agentcli.NewSession(t, a)
		autoReview(s)
		installUser(t, s)
		files := []string{own[a.Name], ".github/copilot/settings.json", ".vscode/settings.json"}
		// The directories exist, as in a real repository (Copilot's create
		// does not make them), so only the hook can stop a write.
		for _, f := range append(files, ".cursor/hooks.json", "notes/ok.json") {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(s.Repo, f)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var script []fakemodel.Step
		for _, f := range files {
			script = append(script, a.Write(f, "{\"disableAllHooks\": true, \"codewhale.server.path\": \"/tmp/x\"}\n"))
		}
		script = append(script, a.Shell("echo '{\"hooks\": {}}' > .cursor/hooks.json"))
		// The control: the same write to an ordinary new directory runs.
		script = append(script, a.Write("notes/ok.json", "{}\n"))
		r := s.Run(s.Repo, script...)
		if !s.Exists(filepath.Join(s.Repo, "notes", "ok.json")) {
			t.Fatalf("control: an ordinary write did not happen; the model was told %q", r.Results[len(r.Results)-1])
		}
		for i, f := range append(files, ".cursor/hooks.json") {
			if s.Exists(filepath.Join(s.Repo, f)) {
				t.Errorf("%s was written; the model was told %q", f, r.Results[i])
			}
		}
	})
}
