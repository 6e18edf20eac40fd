package agents

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

var copilotTools = map[string]counterpart{
	"bash": shell("command").ignoring("description", "initial_wait", "sessionId").
		with("background", "mode", "detach").
		translating("background", map[any]any{"async": true, "sync": nil, true: true, false: nil}),
	"view":        read("path"),
	"create":      write(names("path"), names("file_text", "content")),
	"edit":        edit("path"),
	"str_replace": edit("path"),
	// glob, grep and rg name their directory in paths, a string or an
	// array (seen in Copilot CLI 1.0.102); several directories are refused
	// as several targets are.
	"glob":      search("file_search", names("pattern"), names("path", "paths[]")),
	"grep":      search("grep_files", names("pattern"), names("path", "paths[]")),
	"rg":        search("grep_files", names("pattern"), names("path", "paths[]")),
	"web_fetch": fetch("url"),
	// On GPT-5 models Copilot edits with a freeform apply_patch whose
	// toolArgs is the patch itself (copilotArgs).
	"apply_patch":   patch("input"),
	"report_intent": bookkeeping("note"),
	"update_todo":   bookkeeping("todo_write"),
	"task":          subAgent("agent_type"),
	"read_bash":     sameShell("exec_shell_wait"),
	"write_bash":    sameShell("exec_shell_interact"),
	"stop_bash":     sameShell("exec_shell_cancel"),
	"list_bash":     sameShell("exec_shell_wait"),
	"skill":         skill(),
	"list_agents":   bookkeeping("agents/list"),
	"read_agent":    bookkeeping("agents/wait"),
	"write_agent":   bookkeeping("agents/message"),
}

// copilotCLI: preToolUse {toolName, toolArgs (a JSON string), cwd};
// answer {permissionDecision, permissionDecisionReason}.
var copilotCLI = &Agent{
	Name:        "copilot-cli",
	Example:     `{"toolName":"bash","toolArgs":"{\"command\":\"git status\"}"}`,
	HookTimeout: 30 * time.Second,
	// Copilot approves a hook's "ask" by itself when it runs with
	// --allow-all-tools or --yolo (observed against Copilot CLI 1.0.73:
	// github.com/voodootikigod/adlc/issues/240), and the event does not say
	// which mode it runs in.
	NoAsk: "copilot-cli approves a hook's ask by itself under --allow-all-tools or --yolo, which the hook cannot see",
	// Copilot CLI 1.0.102 gives its hooks COPILOT_PROJECT_DIR (and
	// CLAUDE_PROJECT_DIR, which is Claude Code's and not read here).
	ProjectEnv:   "COPILOT_PROJECT_DIR",
	SessionField: "sessionId",
	Settings: Settings{
		// Copilot reads every .github/hooks/*.json, and for the user every
		// $COPILOT_HOME/hooks/*.json (COPILOT_HOME defaults to ~/.copilot)
		// and the hooks of its settings.json: ours is a file of its own at
		// both levels, so no file of the user's is touched.
		Project: ".github/hooks/codewhale-ls.json", Configured: []string{".github/hooks/*.json"},
		User: "hooks/codewhale-ls.json", UserConfigured: []string{"hooks/*.json", "settings.json"}, UserDir: ".copilot", DirVar: "COPILOT_HOME",
		Events: [][]string{{"hooks", "preToolUse"}},
		Entry: func(c HookCommand) any {
			return copilotHook{Type: "command", Bash: c.Sh, PowerShell: c.PowerShell, TimeoutSec: c.Seconds}
		},
		Skeleton: "{\n  \"version\": 1\n}\n",
		Switches: []HooksSwitch{
			{File: ".github/copilot/settings.json", Key: []string{"disableAllHooks"}, Off: true},
			{File: "settings.json", User: true, Key: []string{"disableAllHooks"}, Off: true},
		},
		ProjectNote: "Copilot CLI reads a project's hooks only in a folder you trusted: a session in an untrusted folder (and `copilot -p` there) runs without this entry.",
	},
	parse: func(event map[string]json.RawMessage) (Call, error) {
		var name, cwd string
		if _, err := field(event, "toolName", &name); err != nil {
			return Call{}, err
		}
		if _, err := field(event, "cwd", &cwd); err != nil {
			return Call{}, err
		}
		input, err := copilotArgs(name, event["toolArgs"])
		if err != nil {
			return Call{}, fmt.Errorf("field \"toolArgs\": %v", err)
		}
		tool, in, err := translate(copilotTools, copilotMCPSpelling(name), input)
		if err != nil {
			return Call{}, err
		}
		return Call{Tool: tool, Input: in, AgentTool: name, Cwd: cwd, NeedsHuman: copilotTools[name].hold}, nil
	},
	// An allow is silence: Copilot's "allow" overrides its own
	// --deny-tool (seen in Copilot CLI 1.0.102: `ls` ran under
	// --allow-all-tools --deny-tool=shell(ls) when the hook said allow, and
	// was refused with no answer), docs/agents.md "An allow is silence".
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{}
		}
		return Output{Stdout: encode(map[string]any{"permissionDecision": r.Verdict, "permissionDecisionReason": r.Reason})}
	},
}

// objectOrJSONString reads a tool's arguments sent either as an object or
// as a JSON string holding one (Copilot CLI's toolArgs; Cursor's MCP
// tool_input).
func objectOrJSONString(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		raw = json.RawMessage(text)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("the tool arguments must be a JSON object or a string holding one: %v", err)
	}
	return args, nil
}

// copilotArgs reads toolArgs; a freeform tool's (apply_patch on GPT-5
// models) is its text, not a JSON object, and becomes its input field.
func copilotArgs(name string, raw json.RawMessage) (map[string]any, error) {
	var text string
	if name == "apply_patch" && json.Unmarshal(raw, &text) == nil && !json.Valid([]byte(text)) {
		return map[string]any{"input": text}, nil
	}
	return objectOrJSONString(raw)
}

// copilotMCPSpelling: Copilot CLI 1.0.102 names an MCP tool
// <server>-<tool> (a server "fake" with a tool "touch_marker" is
// fake-touch_marker), and none of its own tools has a hyphen, so such a
// name is an MCP tool, spelled mcp__server__tool for translate. The server
// is taken to end at the first hyphen; a server whose name has one is
// judged under another split, which changes only which of the user's MCP
// rules match it.
func copilotMCPSpelling(name string) string {
	if _, own := copilotTools[name]; own {
		return name
	}
	server, tool, ok := strings.Cut(name, "-")
	if !ok || server == "" || tool == "" {
		return name
	}
	return "mcp__" + server + "__" + tool
}
