package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// planBlockedCommands are the tool names Plan mode refuses by name
// (docs/codewhale/pipeline.md §2, gate 2), whatever their action.
var planBlockedCommands = []string{"bash", "Bash", "exec_shell", "exec_shell_wait", "exec_shell_interact", "exec_wait", "exec_interact", "code_execution", "js_execution"}

// listAliases are the names a list entry also admits or denies.
var listAliases = map[string][]string{
	"read":       {"read", "read_file", "file"},
	"read_file":  {"read", "read_file", "file"},
	"write":      {"write", "write_file", "file"},
	"write_file": {"write", "write_file", "file"},
	"edit":       {"edit", "edit_file", "file"},
	"edit_file":  {"edit", "edit_file", "file"},
	"file":       {"file", "read", "read_file", "write", "write_file", "edit", "edit_file"},
	"bash":       {"bash", "exec_shell"},
	"exec_shell": {"bash", "exec_shell"},
}

// namesOf is the call's name with its alias set, lower-cased.
func namesOf(call string) []string {
	lower := tool.LowerASCII(call)
	if a, ok := listAliases[lower]; ok {
		return a
	}
	return []string{lower}
}

// listMatches: case-insensitive; an entry ending in `*` is a prefix match.
func listMatches(list []string, call string) bool {
	names := namesOf(call)
	for _, entry := range list {
		e := tool.LowerASCII(entry)
		for _, n := range names {
			if prefix, ok := strings.CutSuffix(e, "*"); ok {
				if strings.HasPrefix(n, prefix) {
					return true
				}
			} else if e == n {
				return true
			}
		}
	}
	return false
}

// admission is layer 2: the first failing gate wins.
func admission(req Request, shellOn bool) (reason string, detail string) {
	name := req.Tool
	if req.Mode == tool.Plan && slices.Contains(planBlockedCommands, name) {
		return fmt.Sprintf("Tool '%s' is not available in Plan mode — switch to Work mode to run commands.", name), "plan mode blocks " + name
	}
	if listMatches(req.DisallowedTools, name) {
		return fmt.Sprintf("Tool '%s' is disallowed for this command (disallowedTools).", name), "on the deny list"
	}
	if req.HasAllowList() && !listMatches(req.AllowedTools, name) {
		return fmt.Sprintf("Tool '%s' is not in the allowed tools for this command (allowedTools).", name), "not on the allow list"
	}
	if !registered(name) {
		return fmt.Sprintf("Tool '%s' is not available: no registered tool, MCP tool or plugin has that name.", name), "no execution path"
	}
	if isShellTool(name) && !shellOn {
		return fmt.Sprintf("Tool '%s' is not available: the shell is disabled for this session (allow_shell).", name), "shell disabled"
	}
	return "", name + " admitted"
}

func isShellTool(name string) bool {
	return tool.IsShell(name) || strings.HasPrefix(name, "exec_shell") || name == "task_shell_start" || name == "task_shell_wait"
}
