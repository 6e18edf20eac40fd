package agentcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
)

// The four agents, configured as docs/codewhale/deps.md Appendix F found they
// run offline, with every telemetry and update check their docs name off.
// What each sends its hook was captured from these versions
// (agents/testdata/captured; what was measured around them is in
// docs/agents.md).

var Claude = &Agent{
	Name: "claude-code", CLI: "claude", Node: 22,
	Configure: func(s *Session) {},
	Env: func(s *Session) []string {
		env := []string{
			"ANTHROPIC_BASE_URL=" + s.Model.URL, "ANTHROPIC_API_KEY=test-key",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
			"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
		}
		if os.Geteuid() == 0 {
			// Claude refuses bypassPermissions as root outside a sandbox
			// unless told it is in one (CI runs as root).
			env = append(env, "IS_SANDBOX=1")
		}
		return env
	},
	// bypassPermissions: Claude's own prompts would refuse every call in
	// -p mode; the hook is the only gate (docs/agents.md, Claude Code "Ask").
	Args: func(s *Session, prompt string) []string {
		return []string{"-p", prompt, "--permission-mode", "bypassPermissions"}
	},
	Shell: func(c string) fakemodel.Step {
		return fakemodel.Step{Tool: "Bash", Args: map[string]any{"command": c, "description": "run"}}
	},
	Read: func(p string) fakemodel.Step {
		return fakemodel.Step{Tool: "Read", Args: map[string]any{"file_path": p}}
	},
	MCPArgs: func(s *Session) []string {
		path := filepath.Join(s.Root, "mcp.json")
		s.WriteJSON(path, map[string]any{"mcpServers": map[string]any{FakeMCPServer: fakeMCPEntry(s, "")}})
		return []string{"--mcp-config", path}
	},
	Write: func(p, c string) fakemodel.Step {
		return fakemodel.Step{Tool: "Write", Args: map[string]any{"file_path": p, "content": c}}
	},
}

var Gemini = &Agent{
	Name: "gemini-cli", CLI: "gemini", Node: 20,
	Configure: func(s *Session) {
		// Without selectedType Gemini exits 41; an untrusted folder makes
		// headless runs exit 55 and blocks project hooks.
		s.WriteJSON(filepath.Join(s.Home, ".gemini", "settings.json"), map[string]any{
			"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"general":    map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
			"telemetry":  map[string]any{"enabled": false},
			"privacy":    map[string]any{"usageStatisticsEnabled": false},
			"mcpServers": map[string]any{FakeMCPServer: fakeMCPEntry(s, "")},
		})
		s.WriteJSON(filepath.Join(s.Home, ".gemini", "trustedFolders.json"), map[string]string{s.Repo: "TRUST_FOLDER"})
	},
	Env: func(s *Session) []string {
		return []string{"GOOGLE_GEMINI_BASE_URL=" + s.Model.URL, "GEMINI_API_KEY=test-key", "GEMINI_TELEMETRY_ENABLED=false"}
	},
	// --yolo: headless Gemini offers only read-only tools otherwise.
	Args: func(s *Session, prompt string) []string { return []string{"-p", prompt, "--yolo"} },
	Shell: func(c string) fakemodel.Step {
		return fakemodel.Step{Tool: "run_shell_command", Args: map[string]any{"command": c}}
	},
	Read: func(p string) fakemodel.Step {
		return fakemodel.Step{Tool: "read_file", Args: map[string]any{"file_path": p}}
	},
	Write: func(p, c string) fakemodel.Step {
		return fakemodel.Step{Tool: "write_file", Args: map[string]any{"file_path": p, "content": c}}
	},
}

var Codex = &Agent{
	Name: "codex", CLI: "codex", Node: 16,
	Configure: func(s *Session) {
		// A provider of ours speaking the Responses API (Codex refuses
		// chat); gpt-5.5 is in Codex's bundled list and gets apply_patch.
		// The project is trusted, else Codex loads no project hooks.
		s.WriteFile(filepath.Join(s.Home, ".codex", "config.toml"), fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"

[analytics]
enabled = false

[feedback]
enabled = false

[features]
hooks = true

[projects.%q]
trust_level = "trusted"
`, s.Model.URL, s.Repo))
	},
	AfterInstall: func(s *Session) { trustCodexHooks(s) },
	Env: func(s *Session) []string {
		return []string{"CODEX_HOME=" + filepath.Join(s.Home, ".codex"), "FAKE_MODEL_KEY=test-key"}
	},
	Args: func(s *Session, prompt string) []string {
		return []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt}
	},
	Shell: func(c string) fakemodel.Step {
		return fakemodel.Step{Tool: "exec_command", Args: map[string]any{"cmd": c}}
	},
	Write: func(p, c string) fakemodel.Step {
		var b strings.Builder
		fmt.Fprintf(&b, "*** Begin Patch\n*** Add File: %s\n", p)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(c, "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
		b.WriteString("*** End Patch\n")
		return fakemodel.Step{Tool: "apply_patch", Raw: b.String()}
	},
}

var Copilot = &Agent{
	Name: "copilot-cli", CLI: "copilot", Node: 22,
	Configure: func(s *Session) {},
	Env: func(s *Session) []string {
		return []string{
			"COPILOT_HOME=" + filepath.Join(s.Home, ".copilot"), "COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_BASE_URL=" + s.Model.URL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=test-key",
			// A Claude model: create/edit/view tools with a path (a GPT-5
			// model gets a freeform apply_patch instead).
			"COPILOT_MODEL=claude-sonnet-4.5",
		}
	},
	Args: func(s *Session, prompt string) []string {
		return []string{"-p", prompt, "--allow-all-tools", "--trust-folder", "--disable-client-telemetry"}
	},
	Shell: func(c string) fakemodel.Step {
		return fakemodel.Step{Tool: "bash", Args: map[string]any{"command": c, "description": "run"}}
	},
	Read: func(p string) fakemodel.Step { return fakemodel.Step{Tool: "view", Args: map[string]any{"path": p}} },
	MCPArgs: func(s *Session) []string {
		path := filepath.Join(s.Root, "mcp.json")
		s.WriteJSON(path, map[string]any{"mcpServers": map[string]any{FakeMCPServer: fakeMCPEntry(s, "local")}})
		return []string{"--additional-mcp-config", "@" + path}
	},
	Write: func(p, c string) fakemodel.Step {
		return fakemodel.Step{Tool: "create", Args: map[string]any{"path": p, "file_text": c}}
	},
}

var All = []*Agent{Claude, Gemini, Codex, Copilot}

// trustCodexHooks trusts every hook Codex lists for the repository, as a
// user does in /hooks: `codex exec` silently skips an untrusted hook. It
// uses Codex's own app-server (hooks/list, then config/batchWrite of
// hooks.state.KEY.trusted_hash), so the hash is Codex's.
func trustCodexHooks(s *Session) {
	s.T.Helper()
	a := s.startAppServer()
	defer a.close()
	var listed struct {
		Data []struct {
			Hooks []struct {
				Key         string `json:"key"`
				CurrentHash string `json:"currentHash"`
			} `json:"hooks"`
		} `json:"data"`
	}
	raw := a.call(s.T, "hooks/list", map[string]any{"cwds": []string{s.Repo, filepath.Join(s.Repo, "sub"), filepath.Join(s.Repo, "secrets")}})
	if err := json.Unmarshal(raw, &listed); err != nil {
		s.T.Fatalf("hooks/list: %v: %s", err, raw)
	}
	state := map[string]any{}
	for _, d := range listed.Data {
		for _, h := range d.Hooks {
			state[h.Key] = map[string]any{"trusted_hash": h.CurrentHash}
		}
	}
	if len(state) == 0 {
		s.T.Fatalf("codex lists no hook after hook install: %s", raw)
	}
	a.call(s.T, "config/batchWrite", map[string]any{"edits": []any{map[string]any{
		"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state,
	}}})
}

// fakeMCPEntry is the mcpServers entry that starts this test binary as
// the fake MCP server; its marker is s.root/mcp-marker. typ is Copilot's
// "type" ("local"), empty for the others.
func fakeMCPEntry(s *Session, typ string) map[string]any {
	self, err := os.Executable()
	if err != nil {
		s.T.Fatal(err)
	}
	e := map[string]any{"command": self, "args": []string{},
		"env": map[string]any{FakeMCPEnv: "1", fakeMCPMarkerEnv: filepath.Join(s.Root, "mcp-marker")}}
	if typ != "" {
		e["type"] = typ
		e["tools"] = []string{"*"}
	}
	return e
}
