package agents

import (
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
}

// geminiCLI: BeforeTool {tool_name, tool_input, cwd}; answer {decision,
// reason}. Its BeforeTool decision documents allow and deny only, so an
// ask without an editor is a deny. A deny also exits 2 with the reason on
// stderr (Gemini's "system block"), which Gemini honours even where it
// could not read the JSON.
var geminiCLI = &Agent{
	Name:        "gemini-cli",
	HookTimeout: 60 * time.Second,
	ProjectEnv:  "GEMINI_PROJECT_DIR",
	NoAsk:       "gemini-cli's BeforeTool hook has no ask (allow or deny only)",
	parse:       parsePreToolUse("BeforeTool", geminiTools),
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{Stdout: encode(map[string]any{"decision": "allow"})}
		}
		return blockingDeny(encode(map[string]any{"decision": "deny", "reason": r.Reason}), r.Reason)
	},
}
