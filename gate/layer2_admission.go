package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
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

// mcpResourceAliases are one tool for the lists from 0.10.0
// (docs/codewhale/releases/0.10.0.md B.2 item 4).
var mcpResourceAliases = []string{"mcp_read_resource", "read_mcp_resource"}

// namesOf is the call's name with its alias set, lower-cased.
func namesOf(call string, r release.Release) []string {
	lower := ascii.Lower(call)
	if a, ok := listAliases[lower]; ok {
		return a
	}
	if r.Has(release.InputAwareDenyList) && slices.Contains(mcpResourceAliases, lower) {
		return mcpResourceAliases
	}
	return []string{lower}
}

// listMatches: case-insensitive; an entry ending in `*` is a prefix match.
func listMatches(list []string, call string, r release.Release) bool {
	if len(list) == 0 { // most requests carry no lists: no names to fold
		return false
	}
	names := namesOf(call, r)
	for _, entry := range list {
		e := ascii.Lower(entry)
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

// rawShellTools run a raw shell command or arbitrary code: from 0.10.0 a
// deny-list entry for Bash refuses each of them (B.2 item 1). The
// verification tools run commands the sidecar cannot bound, so they are
// counted too (docs/codewhale/releases/choices.md, B.2).
var rawShellTools = []string{
	"bash", "exec_shell", "exec_shell_interact", "exec_interact", "task_shell_start", "task_gate_run", "task_create",
	"automation_create", "automation_update", "automation_resume", "automation_run", "terminal/run", "terminal/send",
	"terminal/reset", "code_execution", "js_execution", "rlm_eval", "run_tests", "run_verifiers",
}

// mcpServerStarters are what a Bash entry also refuses from 0.10.1 (D.10).
var mcpServerStarters = []string{"start_mcp_server", "start_registry_mcp_server"}

// denyListHit reports whether the deny list refuses the call. Every
// release matches the call's name; from 0.10.0 the list is input-aware
// (docs/codewhale/releases/0.10.0.md B.2): the call's canonical action
// (Git{action:"status"} is git_status too), a raw-shell tool when the list
// denies Bash, rlm open of a URL when it denies fetch_url. by is the
// change whose widening matched (zero when the name alone did).
func denyListHit(list []string, name string, input map[string]any, r release.Release) (hit bool, by release.Change) {
	if listMatches(list, name, r) {
		if !listMatches(list, name, release.Oldest()) {
			return true, release.InputAwareDenyList // the 0.10.0 alias
		}
		return true, release.Change{}
	}
	if len(list) == 0 || !r.Has(release.InputAwareDenyList) {
		return false, release.Change{}
	}
	semantic := tool.Semantic(name, input)
	if listMatches(list, semantic, r) {
		return true, release.InputAwareDenyList
	}
	if listMatches(list, "bash", r) {
		for _, n := range []string{ascii.Lower(name), semantic} {
			if slices.Contains(rawShellTools, n) {
				return true, release.InputAwareDenyList
			}
			if r.Has(release.BashBlocksMcpServerStart) && slices.Contains(mcpServerStarters, n) {
				return true, release.BashBlocksMcpServerStart
			}
		}
	}
	if url, _ := input["url"].(string); semantic == "rlm_open" && strings.TrimSpace(url) != "" && listMatches(list, "fetch_url", r) {
		return true, release.InputAwareDenyList
	}
	return false, release.Change{}
}

// disallowedReason is the deny list's refusal: from 0.10.0 an MCP tool on
// the list is reported as not existing at all (B.2 item 2), which is
// then the change that made the answer differ.
func disallowedReason(name string, r release.Release, by release.Change) (string, release.Change) {
	if r.Has(release.InputAwareDenyList) && strings.HasPrefix(name, "mcp_") {
		return "Unknown MCP tool name: " + name, release.InputAwareDenyList
	}
	return fmt.Sprintf("Tool '%s' is disallowed for this command (disallowedTools).", name), by
}

// admission is layer 2: the first failing gate wins. by is the release
// change that made the answer differ from 0.9.10's (zero when none did).
func admission(req Request, shellOn, codeMode bool, r release.Release) (reason, detail string, by release.Change) {
	name := req.Tool
	// execute_tools is hidden in Plan mode; a call naming it there is
	// refused like the other code runners (choices.md, B.4).
	if req.Mode == session.Plan && (slices.Contains(planBlockedCommands, name) || (codeMode && name == codeModeTool)) {
		return fmt.Sprintf("Tool '%s' is not available in Plan mode — switch to Work mode to run commands.", name), "plan mode blocks " + name, release.Change{}
	}
	if hit, widenedBy := denyListHit(req.DisallowedTools, name, req.Input, r); hit {
		reason, by := disallowedReason(name, r, widenedBy)
		return reason, "on the deny list", by
	}
	if req.HasAllowList() {
		if !listMatches(req.AllowedTools, name, r) {
			return fmt.Sprintf("Tool '%s' is not in the allowed tools for this command (allowedTools).", name), "not on the allow list", release.Change{}
		}
		if !listMatches(req.AllowedTools, name, release.Oldest()) {
			by = release.InputAwareDenyList // admitted by the 0.10.0 alias
		}
	}
	if !registered(name, codeMode) {
		return fmt.Sprintf("Tool '%s' is not available: no registered tool, MCP tool or plugin has that name.", name), "no execution path", by
	}
	if isShellTool(name) && !shellOn {
		return fmt.Sprintf("Tool '%s' is not available: the shell is disabled for this session (allow_shell).", name), "shell disabled", by
	}
	return "", name + " admitted", by
}

// recheckDenyList is the deny list asked again once tool_call_before
// hooks may have rewritten the input (0.10.0, B.2 item 3): a rewrite into
// an action the list denies is refused. The refusal is the hooks layer's,
// whose trace entry says so.
func (p *plan) recheckDenyList() (Decision, bool) {
	if !p.snap.Release.Has(release.InputAwareDenyList) {
		return Decision{}, false
	}
	if hit, _ := denyListHit(p.req.DisallowedTools, p.req.Tool, p.input, p.snap.Release); !hit {
		return Decision{}, false
	}
	reason := fmt.Sprintf("Tool '%s' or its execution dependency is in the disallowed-tools list", p.req.Tool)
	p.changed(release.InputAwareDenyList)
	hooksEntry := &p.d.Trace[len(p.d.Trace)-1]
	hooksEntry.Effect, hooksEntry.Detail = EffectDeny, hooksEntry.Detail+"; "+reason
	return p.finish(Deny, LayerHooks, reason, nil), true
}

func isShellTool(name string) bool {
	return tool.IsShell(name) || strings.HasPrefix(name, "exec_shell") || name == "task_shell_start" || name == "task_shell_wait"
}
