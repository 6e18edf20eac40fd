package agents

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

var geminiTools = map[string]counterpart{
	"run_shell_command":   shell("command").with("cwd", "dir_path", "directory").with("background", "is_background").ignoring("description"),
	"read_file":           read("file_path", "absolute_path", "path"),
	"write_file":          write(names("file_path", "path"), names("content")),
	"replace":             edit("file_path", "path"),
	"list_directory":      listDir("dir_path", "path"),
	"glob":                search("file_search", names("pattern"), names("dir_path", "path")),
	"search_file_content": search("grep_files", names("pattern"), names("dir_path", "path")),
	"grep_search":         search("grep_files", names("pattern"), names("dir_path", "path")),
	"web_fetch":           fetch("url"),
	"google_web_search":   webSearch("query"),

	"write_todos":               bookkeeping("todo_write"),
	"list_background_processes": sameShell("exec_shell_wait"),
	"read_background_output":    sameShell("exec_shell_wait"),
	"update_topic":              bookkeeping("note"),
	"enter_plan_mode":           bookkeeping("update_plan"),
	"exit_plan_mode":            bookkeeping("update_plan"),
	"activate_skill":            bookkeeping("load_skill"),
	"ask_user":                  bookkeeping("request_user_input"),
	// save_memory appends to ~/.gemini/GEMINI.md, instructions every later
	// session reads: a write there, which the agent-files guard holds for
	// a human.
	"save_memory":       {tool: "write_file", fixed: map[string]any{"path": "~/.gemini/GEMINI.md"}, closed: true},
	"invoke_agent":      subAgent("agent_name", "name"),
	"delegate_to_agent": subAgent("agent_name", "name"),
}

// geminiCLI: BeforeTool {tool_name, tool_input, cwd}; answer {decision,
// reason}. A deny is exit 0 with {"decision": "deny"}, which Gemini
// honours quietly; exit 2 is honoured too, but Gemini logs it as a failed
// hook, a block of error text per deny (seen in Gemini CLI 0.61.0), so it
// is kept for the installed command's `|| exit 2`, when the hook could
// not run at all. An allow is silence, leaving Gemini's own settings in
// force. Gemini 0.61 has an ask for BeforeTool, but in headless runs
// (-p) it waits for an answer for ever, and the event does not say which
// kind of run it is, so without an editor an ask is a deny.
var geminiCLI = &Agent{
	Name:         "gemini-cli",
	Example:      `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git status"}}`,
	HookTimeout:  60 * time.Second,
	ProjectEnv:   "GEMINI_PROJECT_DIR",
	NoAsk:        "gemini-cli's ask waits for ever in a headless run, which the hook cannot tell from an interactive one",
	SessionField: "session_id",
	Settings: Settings{
		// GEMINI_CLI_HOME stands for the home directory itself, under
		// which .gemini/settings.json is read (gemini-cli
		// packages/core/src/utils/paths.ts homedir(), config/storage.ts).
		Project: ".gemini/settings.json", User: "settings.json", UserDir: ".gemini", DirVar: "GEMINI_CLI_HOME", DirVarIsHome: true,
		Events: [][]string{{"hooks", "BeforeTool"}}, Entry: matcherEntry(1000), Skeleton: "{}\n", Exit2Blocks: true,
		Switches: []HooksSwitch{
			{File: ".gemini/settings.json", Key: []string{"hooksConfig", "enabled"}, Off: false},
			{File: "settings.json", User: true, Key: []string{"hooksConfig", "enabled"}, Off: false},
		},
		ProjectNote: "Gemini CLI reads a project's .gemini/settings.json only in the directory it is started in, and only in a folder you trusted: a session started in a subdirectory of the project, or in an untrusted folder, runs without this entry.",
	},
	parse: geminiParse,
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{}
		}
		return Output{Stdout: encode(map[string]any{"decision": "deny", "reason": r.Reason})}
	},
}

// geminiParse reads a BeforeTool event. Gemini names an MCP tool
// mcp_<server>_<tool> (single underscores) and says which server and tool
// in mcp_context; its web_fetch has only a prompt, with the URLs inside.
func geminiParse(event map[string]json.RawMessage) (Call, error) {
	var name string
	if _, err := field(event, "tool_name", &name); err != nil {
		return Call{}, err
	}
	if strings.HasPrefix(name, "mcp_") && !strings.HasPrefix(name, "mcp__") {
		spelled, err := geminiMCPName(event, name)
		if err != nil {
			return Call{}, err
		}
		event = maps.Clone(event)
		event["tool_name"], _ = json.Marshal(spelled)
	}
	call, err := parsePreToolUse("BeforeTool", geminiTools)(event)
	if err != nil {
		return Call{}, err
	}
	if call.AgentTool == "web_fetch" {
		splitFetch(&call)
	}
	return call, nil
}

// geminiMCPName is the mcp__server__tool spelling of Gemini's MCP tool
// name, from mcp_context's server and tool names where it gives them. A
// name without them is split nowhere: as Codewhale's mcp_<server>_<tool>
// it is the same name whatever the split, and it is refused only where
// that name is a built-in tool's (mcpName).
func geminiMCPName(event map[string]json.RawMessage, name string) (string, error) {
	var context struct {
		Server string `json:"server_name"`
		Tool   string `json:"tool_name"`
	}
	if _, err := field(event, "mcp_context", &context); err != nil {
		return "", err
	}
	if context.Server != "" && context.Tool != "" {
		return "mcp__" + context.Server + "__" + context.Tool, nil
	}
	if gate.Builtin(name) {
		return "", fmt.Errorf("field \"tool_name\": MCP tool %q has the name of Codewhale's built-in tool and no mcp_context names its server, so it cannot be decided as an MCP tool", name)
	}
	return "mcp__" + strings.TrimPrefix(name, "mcp_"), nil
}

// urlPattern finds the URLs in a free-text fetch prompt.
var urlPattern = regexp.MustCompile(`(?i)https?://[^\s"'<>()\[\]{}]+`)

// splitFetch turns a fetch whose URLs are in a free-text prompt into one
// fetch per URL, each of which must be allowed (a session grant is keyed
// by host, so one prompt's grant must not cover every later fetch); with
// none found, a human decides.
func splitFetch(call *Call) {
	if _, hasURL := call.Input["url"]; hasURL {
		return
	}
	prompt, _ := call.Input["prompt"].(string)
	for _, u := range urlPattern.FindAllString(prompt, maxFetchURLs+1) {
		call.Each = append(call.Each, map[string]any{"url": strings.TrimRight(u, ".,;:!?")})
	}
	switch {
	case len(call.Each) == 0:
		call.NeedsHuman = "This fetch names its URLs only inside a free-text prompt, and codewhale-ls found none there, so what it reaches is unknown and a human decides it."
	case len(call.Each) > maxFetchURLs:
		call.Each = nil
		call.NeedsHuman = fmt.Sprintf("This fetch names more than %d URLs inside a free-text prompt, more than codewhale-ls judges one by one, so a human decides it.", maxFetchURLs)
	default:
		call.Input = call.Each[0]
	}
}

// maxFetchURLs bounds how many URLs of one prompt are judged.
const maxFetchURLs = 20
