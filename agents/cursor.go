package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

var cursorTools = map[string]counterpart{
	"Shell":      shell("command").with("cwd", "cwd", "working_directory").with("background", "is_background").ignoring("explanation"),
	"Read":       read("path", "file_path", "target_file"),
	"Write":      write(names("path", "file_path"), names("contents", "content")),
	"Edit":       edit("path", "file_path"),
	"StrReplace": edit("path", "file_path"),
	"MultiEdit":  edit("path", "file_path"),
	"LS":         listDir("path", "target_directory"),
	"Glob":       search("file_search", names("glob_pattern", "pattern"), names("target_directory", "path")),
	"Grep":       search("grep_files", names("pattern"), names("path")),
	"WebFetch":   fetch("url"),
	"WebSearch":  webSearch("search_term", "query"),
}

// cursor: one hook command serves several events, told apart by
// hook_event_name: beforeShellExecution {command, cwd}, beforeReadFile
// {file_path}, beforeMCPExecution and preToolUse {tool_name, tool_input}.
// The working directory is cwd, else the first of workspace_roots; the
// project is the workspace root holding cwd, else the first.
// Answer {permission, user_message, agent_message}.
var cursor = &Agent{
	Name:         "cursor",
	Example:      `{"hook_event_name":"beforeShellExecution","command":"git status"}`,
	HookTimeout:  30 * time.Second,
	SessionField: "conversation_id",
	Settings: Settings{
		Project: ".cursor/hooks.json", User: "hooks.json", UserDir: ".cursor",
		Events: [][]string{
			{"hooks", "beforeShellExecution"},
			{"hooks", "beforeMCPExecution"},
			{"hooks", "beforeReadFile"},
			{"hooks", "preToolUse"},
		},
		Entry: func(c HookCommand) any {
			return cursorHook{Command: c.Sh, Timeout: c.Seconds, FailClosed: true}
		},
		Skeleton: "{\n  \"version\": 1\n}\n", Exit2Blocks: true,
	},
	parse: func(event map[string]json.RawMessage) (Call, error) {
		var kind, cwd string
		if _, err := field(event, "hook_event_name", &kind); err != nil {
			return Call{}, err
		}
		if _, err := field(event, "cwd", &cwd); err != nil {
			return Call{}, err
		}
		var roots []string
		if _, err := field(event, "workspace_roots", &roots); err != nil {
			return Call{}, err
		}
		project := projectRoot(roots, cwd)
		if cwd == "" {
			cwd = project
		}
		input := map[string]any{}
		var name string
		switch kind {
		case "beforeShellExecution":
			name = "Shell"
			var command any
			if present, err := field(event, "command", &command); err != nil {
				return Call{}, err
			} else if !present {
				return Call{}, errors.New("field \"command\": the beforeShellExecution event gives no command (or null): a shell call is decided by its command, so one without it is refused")
			}
			line, err := commandLine(kind, "command", command, asText)
			if err != nil {
				return Call{}, fmt.Errorf("field \"command\": %v", err)
			}
			input["command"] = line
		case "beforeReadFile":
			name = "Read"
			var path string
			if _, err := field(event, "file_path", &path); err != nil {
				return Call{}, err
			}
			input["path"] = path
		case "beforeMCPExecution", "preToolUse":
			if _, err := field(event, "tool_name", &name); err != nil {
				return Call{}, err
			}
			if kind == "beforeMCPExecution" && !strings.HasPrefix(name, "mcp__") {
				// An MCP server names its tools, and a repository's
				// .cursor/mcp.json names the server: a tool called Read
				// is still the server's, never Cursor's own. The event
				// does not name the server.
				name = "mcp__unknown__" + name
			}
			args, err := objectOrJSONString(event["tool_input"])
			if err != nil {
				return Call{}, fmt.Errorf("field \"tool_input\": %v", err)
			}
			if args != nil {
				input = args
			}
		default:
			return Call{}, fmt.Errorf("field \"hook_event_name\": the hook answers beforeShellExecution, beforeReadFile, beforeMCPExecution and preToolUse, got %q", kind)
		}
		tool, in, err := translate(cursorTools, name, input)
		if err != nil {
			return Call{}, err
		}
		return Call{Tool: tool, Input: in, AgentTool: name, Cwd: cwd, ProjectDir: project}, nil
	},
	render: func(r Reply) Output {
		return Output{Stdout: encode(map[string]any{"permission": r.Verdict, "user_message": r.Reason, "agent_message": r.Reason})}
	},
}

// projectRoot is the workspace root that holds cwd, else the first root:
// the session's project, judged beside every work tree holding the cwd.
func projectRoot(roots []string, cwd string) string {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, cwd); cwd != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return r
		}
	}
	if len(roots) > 0 {
		return roots[0]
	}
	return ""
}
