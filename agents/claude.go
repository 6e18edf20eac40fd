package agents

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// claudeTools maps Claude Code's tools (also VS Code's agent hooks, which
// share its format).
var claudeTools = map[string]counterpart{
	"Bash":         shell("command").with("background", "run_in_background").ignoring("description", "timeout"),
	"Read":         read("file_path"),
	"Write":        write(names("file_path"), names("content")),
	"Edit":         edit("file_path"),
	"MultiEdit":    edit("file_path"),
	"NotebookEdit": edit("notebook_path"),
	"LS":           listDir("path"),
	"Glob":         search("file_search", names("pattern"), names("path")),
	"Grep":         search("grep_files", names("pattern"), names("path")),
	"WebFetch":     fetch("url"),
	"WebSearch":    webSearch("query"),
	"NotebookRead": read("notebook_path"),

	// Claude's own bookkeeping (docs/agents.md, "Tools that touch nothing
	// outside the agent"): each as Codewhale decides its counterpart.
	"TodoWrite":            bookkeeping("todo_write"),
	"TaskCreate":           bookkeeping("todo_write"),
	"TaskUpdate":           bookkeeping("todo_write"),
	"TaskList":             bookkeeping("todo_write"),
	"TaskGet":              bookkeeping("todo_write"),
	"ToolSearch":           bookkeeping("tool_search"),
	"Skill":                skill(),
	"EnterPlanMode":        bookkeeping("update_plan"),
	"ExitPlanMode":         bookkeeping("update_plan"),
	"AskUserQuestion":      bookkeeping("request_user_input"),
	"ListMcpResourcesTool": bookkeeping("list_mcp_resources"),
	"ReadMcpResourceTool":  bookkeeping("mcp_read_resource"),
	"Agent":                subAgent("subagent_type"),
	"Task":                 subAgent("subagent_type"),
	"BashOutput":           sameShell("exec_shell_wait"),
	"TaskOutput":           sameShell("exec_shell_wait"),
	"KillShell":            sameShell("exec_shell_cancel"),
	"KillBash":             sameShell("exec_shell_cancel"),
	"TaskStop":             sameShell("exec_shell_cancel"),

	// VS Code's agent hooks (its Local harness) send VS Code's own tool
	// names in the same event (docs/agents.md, "Claude Code (and VS Code
	// agent hooks)").
	"run_in_terminal":              shell("command").with("background", "isBackground").ignoring("explanation", "goal", "timeout"),
	"read_file":                    read("filePath"),
	"create_file":                  write(names("filePath"), names("content")),
	"replace_string_in_file":       edit("filePath"),
	"insert_edit_into_file":        edit("filePath"),
	"edit_notebook_file":           edit("filePath"),
	"multi_replace_string_in_file": edit("replacements[].filePath"),
	"editFiles":                    edit("files[]"),
	"apply_patch":                  patch("input"),
	"list_dir":                     listDir("path"),
	"file_search":                  search("file_search", names("query"), nil),
	"grep_search":                  search("grep_files", names("query"), nil),
	"fetch_webpage":                fetch("urls[]").ignoring("query"),
}

// claudeCode: PreToolUse {tool_name, tool_input, tool_use_id, cwd}. A deny
// or an ask is answered as hookSpecificOutput JSON with exit 0 (Claude
// treats exit codes other than 0 and 2 as a failed hook and runs the
// tool, so the hook never uses one). An allow is silence: Claude's
// "allow" would also skip Claude's own permission rules and prompt, so a
// user's stricter Claude settings would lose to our allow (docs/agents.md,
// "An allow is silence").
var claudeCode = &Agent{
	Name:         "claude-code",
	Example:      `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"},"permission_mode":"default"}`,
	HookTimeout:  600 * time.Second,
	ProjectEnv:   "CLAUDE_PROJECT_DIR",
	SessionField: "session_id",
	Settings: Settings{
		// CLAUDE_CONFIG_DIR replaces ~/.claude (Claude Code's settings
		// documentation).
		Project: ".claude/settings.json", User: "settings.json", UserDir: ".claude", DirVar: "CLAUDE_CONFIG_DIR",
		Events: [][]string{{"hooks", "PreToolUse"}}, Entry: matcherEntry(1), Skeleton: "{}\n", Exit2Blocks: true,
		Switches: []HooksSwitch{
			{File: ".claude/settings.json", Key: []string{"disableAllHooks"}, Off: true},
			{File: ".claude/settings.local.json", Key: []string{"disableAllHooks"}, Off: true},
			{File: "settings.json", User: true, Key: []string{"disableAllHooks"}, Off: true},
		},
		ProjectNote: "Claude Code reads a project's .claude/settings.json only in the directory it is started in: a session started in a subdirectory of the project runs without this entry.",
	},
	parse: claudeParse,
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{}
		}
		return Output{Stdout: preToolUseAnswer(r)}
	},
}

// claudeParse reads a PreToolUse event and, from its permission_mode,
// whether an ask would reach a person: in default, plan and acceptEdits
// mode Claude shows the ask to its user; bypassPermissions approves every
// prompt without one, auto hands it to a classifier, dontAsk never asks,
// and a mode we do not know is taken as one that does not ask either; so
// is an event without the field (VS Code's agent hooks, whose auto-approve
// settings may answer an ask by themselves): there the editor's own
// codewhale-ls asks instead. The mode only ever takes the ask away, never
// the policy's deny.
func claudeParse(event map[string]json.RawMessage) (Call, error) {
	call, err := parsePreToolUse("PreToolUse", claudeTools)(event)
	if err != nil {
		return Call{}, err
	}
	var mode string
	present, err := field(event, "permission_mode", &mode)
	if err != nil {
		return Call{}, err
	}
	switch {
	case !present:
		call.NoAsk = "the event does not say the permission mode (VS Code's agent hooks never do), so whether an ask would reach a person is unknown"
	case mode == "default", mode == "plan", mode == "acceptEdits":
	default:
		call.NoAsk = fmt.Sprintf("Claude Code runs in permission mode %q, where its ask would not reach a person", mode)
	}
	return call, nil
}

// preToolUseAnswer is the hookSpecificOutput answer Claude Code and Codex
// read.
func preToolUseAnswer(r Reply) string {
	return encode(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       r.Verdict,
		"permissionDecisionReason": r.Reason,
	}})
}

// parsePreToolUse reads the event shape Claude Code, Codex and Gemini CLI
// share: {hook_event_name, tool_name, tool_input, tool_use_id, cwd}.
func parsePreToolUse(eventName string, table map[string]counterpart) func(map[string]json.RawMessage) (Call, error) {
	return func(event map[string]json.RawMessage) (Call, error) {
		var got string
		if _, err := field(event, "hook_event_name", &got); err != nil {
			return Call{}, err
		}
		if got != "" && got != eventName {
			return Call{}, fmt.Errorf("field \"hook_event_name\": the hook answers %s events, got %q", eventName, got)
		}
		name, input, cwd, id, err := common(event, "tool_name", "tool_input", "tool_use_id")
		if err != nil {
			return Call{}, err
		}
		tool, in, err := translate(table, name, input)
		if err != nil {
			return Call{}, err
		}
		return Call{Tool: tool, Input: in, AgentTool: name, Cwd: cwd, CallID: id, NeedsHuman: table[name].hold}, nil
	}
}
