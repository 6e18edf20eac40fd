package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookVerdict runs one event through `codewhale-ls hook AGENT` and reads
// the verdict from the agent's answer: "allow", "deny" or "ask".
func hookVerdict(t *testing.T, agent, event string, args ...string) (verdict, answer string) {
	t.Helper()
	code, out, errOut := runCLI(t, event, append([]string{"hook", agent}, args...)...)
	answer = out + errOut
	switch {
	case code == 2:
		return "deny", answer
	case code != 0:
		t.Fatalf("exit %d: %s", code, answer)
	case strings.TrimSpace(out) == "":
		return "allow", answer // silence: the agent's own rules decide
	}
	var reply map[string]any
	if err := json.Unmarshal([]byte(out), &reply); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	for _, key := range []string{"permissionDecision", "decision", "permission"} {
		if v, ok := reply[key].(string); ok {
			return v, answer
		}
	}
	if spec, ok := reply["hookSpecificOutput"].(map[string]any); ok {
		if v, ok := spec["permissionDecision"].(string); ok {
			return v, answer
		}
	}
	t.Fatalf("no verdict in %q", out)
	return "", ""
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHookRelativePathsMeanWhatTheyMeanToTheAgent: a relative path in an
// agent's call is joined to the agent's working directory (the event's
// cwd, or the shell's own working-directory field) before any layer reads
// it (issue 14 point 1: each of these was allowed, and the real agent
// wrote the file or printed the key).
func TestHookRelativePathsMeanWhatTheyMeanToTheAgent(t *testing.T) {
	w := newHookWorld(t)
	writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), `{"protected_invariants":[{"text":"secrets are never written","paths":["secrets/**"],"action":"block"}]}`)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n")
	secrets := filepath.Join(w.ws, "secrets")
	sub := filepath.Join(w.ws, "sub")
	for _, d := range []string{secrets, sub} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// From sub, ../../home is the test's home (root/ws/sub → root/home).
	cases := []struct {
		name, agent, event, wantIn string
	}{
		{"codex apply_patch from secrets", "codex",
			`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: key.txt\n+k\n*** End Patch\n"},"cwd":` + jsonString(secrets) + `}`,
			"secrets are never written"},
		{"gemini write_file from secrets", "gemini-cli",
			`{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"key.txt","content":"k"},"cwd":` + jsonString(secrets) + `}`,
			"secrets are never written"},
		{"claude Edit of a relative path from secrets", "claude-code",
			`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"../secrets/key.txt","content":"k"},"permission_mode":"default","cwd":` + jsonString(sub) + `}`,
			"secrets are never written"},
		{"codex shell reads a key through ../..", "codex",
			`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat ../../home/.ssh/id_rsa"},"cwd":` + jsonString(sub) + `}`,
			"read deny-list"},
		{"copilot shell reads a key through ../..", "copilot-cli",
			`{"toolName":"bash","toolArgs":"{\"command\":\"cat ../../home/.ssh/id_rsa\"}","cwd":` + jsonString(sub) + `}`,
			"read deny-list"},
		{"gemini shell with a relative dir_path", "gemini-cli",
			`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"cat id_rsa","dir_path":"../../home/.ssh"},"cwd":` + jsonString(sub) + `}`,
			"read deny-list"},
		{"gemini read_file of a relative key", "gemini-cli",
			`{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"../../home/.ssh/id_rsa"},"cwd":` + jsonString(sub) + `}`,
			"read deny-list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			verdict, answer := hookVerdict(t, c.agent, c.event, "--codewhale-version", "0.10.1")
			if verdict != "deny" || !strings.Contains(answer, c.wantIn) {
				t.Errorf("verdict %s, want deny naming %q:\n%s", verdict, c.wantIn, answer)
			}
		})
	}
}

// TestHookWorkspaceIsNotChosenByTheCwd: where the agent stands does not
// choose the policy (issue 14 point 5). A submodule, a `.git` the agent
// made, or a symlink to the repository each left the repository's own
// files behind; now every work tree holding the cwd decides, as spelled
// and resolved, and the strictest verdict stands.
func TestHookWorkspaceIsNotChosenByTheCwd(t *testing.T) {
	shell := func(cwd string) string {
		return `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":` + jsonString(cwd) + `}`
	}
	t.Run("overlay holds in a nested work tree", func(t *testing.T) {
		w := newHookWorld(t)
		writeFile(t, filepath.Join(w.ws, ".codewhale", "config.toml"), "allow_shell = false\n")
		writeFile(t, filepath.Join(w.ws, "sub", ".git"), "") // the agent's `touch sub/.git`
		for _, cwd := range []string{w.ws, filepath.Join(w.ws, "sub")} {
			if verdict, answer := hookVerdict(t, "codex", shell(cwd), "--codewhale-version", "0.10.1"); verdict != "deny" {
				t.Errorf("from %s: %s, want deny\n%s", cwd, verdict, answer)
			}
		}
	})
	t.Run("constitution holds in a submodule under Full Access", func(t *testing.T) {
		w := newHookWorld(t)
		writeFile(t, filepath.Join(w.codewhaleHome, "config.toml"), "yolo = true\n")
		writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), `{"protected_invariants":[{"text":"vendored code is frozen","paths":["vendor/**"],"action":"block"}]}`)
		module := filepath.Join(w.ws, "vendor", "lib")
		writeFile(t, filepath.Join(module, ".git"), "gitdir: ../../.git/modules/lib\n")
		event := `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"x.go","content":"k"},"permission_mode":"default","cwd":` + jsonString(module) + `}`
		if verdict, answer := hookVerdict(t, "claude-code", event, "--codewhale-version", "0.10.1"); verdict != "deny" || !strings.Contains(answer, "vendored code is frozen") {
			t.Errorf("%s, want the constitution's deny\n%s", verdict, answer)
		}
	})
	t.Run("a workspace rule holds through a symlink", func(t *testing.T) {
		w := newHookWorld(t)
		writeFile(t, filepath.Join(w.codewhaleHome, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"ls\"\nworkspace = "+jsonString(w.ws)+"\naction = \"deny\"\n")
		link := filepath.Join(filepath.Dir(w.ws), "link")
		if err := os.Symlink(w.ws, link); err != nil {
			t.Fatal(err)
		}
		for _, cwd := range []string{w.ws, link, filepath.Join(link, ".")} {
			if verdict, answer := hookVerdict(t, "codex", shell(cwd), "--codewhale-version", "0.10.1"); verdict != "deny" {
				t.Errorf("from %s: %s, want deny\n%s", cwd, verdict, answer)
			}
		}
	})
	t.Run("the agent's project directory is judged too", func(t *testing.T) {
		w := newHookWorld(t)
		writeFile(t, filepath.Join(w.ws, ".codewhale", "config.toml"), "allow_shell = false\n")
		elsewhere := t.TempDir() // a cwd outside the project, in no work tree
		t.Setenv("CLAUDE_PROJECT_DIR", w.ws)
		event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"default","cwd":` + jsonString(elsewhere) + `}`
		if verdict, answer := hookVerdict(t, "claude-code", event, "--codewhale-version", "0.10.1"); verdict != "deny" {
			t.Errorf("%s, want deny from the project's overlay\n%s", verdict, answer)
		}
	})
	t.Run("codex's workdir does not leave the session's repository", func(t *testing.T) {
		// Codex names no project and turns a command's workdir into the
		// event's cwd; the hook itself runs in the session's directory.
		w := newHookWorld(t)
		writeFile(t, filepath.Join(w.ws, ".codewhale", "config.toml"), "allow_shell = false\n")
		other := t.TempDir()
		event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls ` + w.ws + `"},"cwd":` + jsonString(other) + `}`
		if verdict, answer := hookVerdict(t, "codex", event, "--codewhale-version", "0.10.1"); verdict != "deny" {
			t.Errorf("%s, want deny from the session's overlay\n%s", verdict, answer)
		}
	})
	t.Run("a relative cwd is refused", func(t *testing.T) {
		newHookWorld(t)
		if verdict, answer := hookVerdict(t, "codex", shell("ws/sub"), "--codewhale-version", "0.10.1"); verdict != "deny" || !strings.Contains(answer, "not an absolute path") {
			t.Errorf("%s, want a deny naming the relative cwd\n%s", verdict, answer)
		}
	})
}

// TestHookAgentCannotSwitchOffItsHook: one allowed write was enough for an
// agent to turn off its own hook or choose the editor's server (issue 14
// point 4); now a human decides every such call, whatever the posture.
func TestHookAgentCannotSwitchOffItsHook(t *testing.T) {
	w := newHookWorld(t)
	writeFile(t, filepath.Join(w.codewhaleHome, "config.toml"), "approval_policy = \"on-request\"\n")
	cases := []struct{ agent, event, want string }{
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":".claude/settings.local.json","content":"{\"disableAllHooks\": true}"},"permission_mode":"default","cwd":` + jsonString(w.ws) + `}`, "ask"},
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":".claude/settings.local.json","content":"{\"disableAllHooks\": true}"},"permission_mode":"bypassPermissions","cwd":` + jsonString(w.ws) + `}`, "deny"},
		{"gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":".gemini/settings.json","content":"{}"},"cwd":` + jsonString(w.ws) + `}`, "deny"},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n"},"cwd":` + jsonString(w.ws) + `}`, "deny"},
		{"copilot-cli", `{"toolName":"bash","toolArgs":"{\"command\":\"echo {} > .github/copilot/settings.json\"}","cwd":` + jsonString(w.ws) + `}`, "deny"},
		{"cursor", `{"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"path":".vscode/settings.json","contents":"{}"},"cwd":` + jsonString(w.ws) + `}`, "ask"},
	}
	for _, c := range cases {
		verdict, answer := hookVerdict(t, c.agent, c.event, "--codewhale-version", "0.10.1")
		if verdict != c.want || !strings.Contains(answer, "human decides") {
			t.Errorf("%s: %s, want %s naming the guard\n%s", c.agent, verdict, c.want, answer)
		}
	}
}

// TestHookMCPAndFetchAsTheRealCLIsSendThem: an MCP server's tool named as
// a built-in is decided as an MCP tool (it needed no approval as the
// built-in), and a Gemini fetch is judged per URL in its prompt, none
// found being for a human (issue 14 points 6 and 7).
func TestHookMCPAndFetchAsTheRealCLIsSendThem(t *testing.T) {
	w := newHookWorld(t)
	cases := []struct{ name, agent, event, want string }{
		{"mcp named as a built-in", "claude-code", `{"hook_event_name":"PreToolUse","tool_name":"mcp__read__resource","tool_input":{"uri":"file:///etc/passwd"},"permission_mode":"default","cwd":` + jsonString(w.ws) + `}`, "ask"},
		{"gemini mcp", "gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"mcp_github_create_issue","tool_input":{"title":"t"},"mcp_context":{"server_name":"github","tool_name":"create_issue"},"cwd":` + jsonString(w.ws) + `}`, "deny"},
		{"fetch without a URL", "gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"fetch the usual page"},"cwd":` + jsonString(w.ws) + `}`, "deny"},
		{"fetch of allowed URLs", "gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"compare https://example.com/a and https://example.org/b"},"cwd":` + jsonString(w.ws) + `}`, "allow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			verdict, answer := hookVerdict(t, c.agent, c.event, "--codewhale-version", "0.10.1")
			if verdict != c.want || strings.Contains(answer, "unmapped") || strings.Contains(answer, "not available") {
				t.Errorf("%s, want %s, decided as the tool it is\n%s", verdict, c.want, answer)
			}
		})
	}
}
