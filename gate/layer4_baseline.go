package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/shellsafety"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
	"github.com/codewhale-ls/codewhale-ls/gate/writetarget"
)

// Requirement is a registered tool's approval requirement (docs/codewhale/pipeline.md §4.1).
type Requirement int

const (
	ReqAuto Requirement = iota
	ReqSuggest
	ReqRequired
)

// Plain is the requirement in words, its name in brackets
// (docs/glossary.md, "Approval requirement").
func (r Requirement) Plain() string {
	switch r {
	case ReqAuto:
		return "needs no approval (requirement Auto)"
	case ReqSuggest:
		return "needs approval (requirement Suggest)"
	}
	return "needs explicit approval (requirement Required)"
}

func (r Requirement) String() string {
	switch r {
	case ReqAuto:
		return "Auto"
	case ReqSuggest:
		return "Suggest"
	}
	return "Required"
}

// fixedRequirements is the built-in table of §4.2 for tools whose
// requirement does not depend on their input.
var fixedRequirements = map[string]Requirement{}

func init() {
	for _, n := range strings.Fields(`read read_file list_dir grep_files file_search image_ocr retrieve_tool_result Git
		git_status git_diff git_log git_show git_blame diagnostics lsp project_map read_media validate_data load_skill
		tui_help handle_read memory_search memory_get notify finance review verify web_search fetch_url Web web.run
		wait_for_dev_server registry_sync update_plan todo_write note remember create_goal get_goal update_goal
		agents/list agents/wait agents/coordinate request_user_input speech tool_search
		list_mcp_resources list_mcp_resource_templates mcp_read_resource read_mcp_resource mcp_get_prompt`) {
		fixedRequirements[n] = ReqAuto
	}
	for _, n := range strings.Fields(`write edit write_file edit_file apply_patch fim_edit pandoc_convert code_execution js_execution
		execute_tools`) {
		fixedRequirements[n] = ReqSuggest
	}
	for _, n := range strings.Fields(`task_shell_start task_shell_wait run_tests run_verifiers Run revert_turn agents/message
		agents/followup agents/interrupt start_mcp_server start_registry_mcp_server exec_shell_wait exec_shell_interact
		exec_shell_cancel exec_wait exec_interact`) {
		fixedRequirements[n] = ReqRequired
	}
}

// actionTools have a requirement that depends on input.action; the value
// lists the actions that need no approval.
var actionTools = map[string][]string{
	"agent":      {"status", "peek", "wait"},
	"tasks":      {"list", "read", "pr_attempt_list", "pr_attempt_read"},
	"automation": {"list", "read"},
	"github":     {"issue_context", "pr_context"},
	"harness":    {"overview"},
	"workflow":   {"status"},
	"send_later": {"list", "read"},
}

// readOnlyAgentRoles may be started without approval.
var readOnlyAgentRoles = []string{"explore", "explorer", "research", "researcher", "review", "reviewer", "plan", "planner"}

// codeModeTool exists only in Code mode ([features] code_mode, from
// 0.10.0: docs/codewhale/releases/0.10.0.md B.0, B.4).
const codeModeTool = "execute_tools"

// registered reports whether a call has an execution path (§2 gate 7).
func registered(name string, codeMode bool) bool {
	if name == codeModeTool {
		return codeMode
	}
	return Builtin(name) || strings.HasPrefix(name, "mcp_") || strings.HasPrefix(name, "terminal/")
}

// Builtin reports whether name is one of Codewhale's own tools, as
// opposed to an MCP server's or a terminal's: an MCP tool whose
// mcp_<server>_<tool> name is also a built-in's (a server called "read"
// with a tool "resource" is mcp_read_resource) must not be decided as the
// built-in (docs/agents.md, "MCP tools").
func Builtin(name string) bool {
	if _, ok := fixedRequirements[name]; ok {
		return true
	}
	if _, ok := actionTools[name]; ok {
		return true
	}
	return slices.Contains(familyTools, name)
}

// familyTools are the built-in tools neither table names: the shell and
// file families and Code mode's tool, whose requirement is computed.
var familyTools = []string{"bash", "Bash", "exec_shell", "File", "rlm", codeModeTool}

// BuiltinNames are the names Builtin accepts, sorted: Codewhale's own
// tools (execute_tools only exists in Code mode). An MCP tool
// (mcp_<server>_<tool>) and a terminal's (terminal/<name>) are valid
// calls too (Registered).
func BuiltinNames() []string {
	names := slices.Clone(familyTools)
	for n := range fixedRequirements {
		names = append(names, n)
	}
	for n := range actionTools {
		names = append(names, n)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Registered reports whether name can be a call Codewhale executes: a
// built-in tool, an MCP tool or a terminal's (§2 gate 7; execute_tools
// counts, though only Code mode registers it).
func Registered(name string) bool {
	return registered(name, true)
}

// requirement is the registered requirement of a call (§4.2). Tools the
// table does not name are treated as executing code: Required. sh is the
// parsed shell command of a shell call (nil parses it here).
func requirement(name, semantic string, input map[string]any, sh *shellsafety.Command) Requirement {
	action, _ := tool.Action(input)
	switch {
	case tool.IsShell(name):
		cmd, ok := input["command"].(string)
		if !ok || !parallelReadOnlyShape(input) {
			return ReqRequired
		}
		if sh == nil {
			sh = shellsafety.Parse(cmd)
		}
		if sh.ReadOnly() {
			return ReqAuto
		}
		return ReqRequired
	case name == "File":
		if tool.IsFileWrite(semantic) {
			return ReqSuggest
		}
		return ReqAuto
	case name == "rlm":
		// eval runs code; an action that resolves to nothing is treated alike.
		if semantic == "rlm_eval" || semantic == "rlm" {
			return ReqRequired
		}
		return ReqAuto
	case name == "agent" && action == "start":
		if role, _ := input["role"].(string); slices.Contains(readOnlyAgentRoles, ascii.Lower(role)) {
			return ReqAuto
		}
		return ReqRequired
	}
	if free, ok := actionTools[name]; ok {
		if slices.Contains(free, action) {
			return ReqAuto
		}
		return ReqRequired
	}
	if r, ok := fixedRequirements[name]; ok {
		return r
	}
	if strings.HasPrefix(name, "mcp_") {
		return ReqSuggest
	}
	return ReqRequired
}

// parallelReadOnlyShape: only action/command/cwd/timeout_ms (plus the
// detach flags when false), action absent/null/"run", no stdin payload.
func parallelReadOnlyShape(input map[string]any) bool {
	for k, v := range input {
		switch k {
		case "command", "cwd", "timeout_ms":
		case "action":
			if v != nil && v != "run" {
				return false
			}
		case "background", "interactive", "tty", "combined_output":
			if v != nil && v != false {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// nonBypassable are the registered holds a session grant cannot skip.
func nonBypassable(name, semantic string, req Requirement) bool {
	if req == ReqAuto {
		return false
	}
	for _, n := range []string{name, semantic} {
		switch n {
		case "rlm_eval", "rlm", "start_mcp_server":
			return true
		}
	}
	return false
}

// mcpReadOnly guesses an MCP tool's read-only hint from its name, since the
// sidecar cannot see the server's tool annotations: the read helpers, or a
// tool whose own name starts with a reading verb.
func mcpReadOnly(name string) bool {
	if r, ok := fixedRequirements[name]; ok {
		return r == ReqAuto
	}
	rest := strings.TrimPrefix(name, "mcp_")
	_, toolPart, ok := strings.Cut(rest, "_")
	if !ok {
		return false
	}
	for _, verb := range []string{"read", "list", "get", "search", "view", "show", "query", "describe", "fetch"} {
		if toolPart == verb || strings.HasPrefix(toolPart, verb+"_") {
			return true
		}
	}
	return false
}

// planWriteBlocked is the Plan-mode write block of §4.3.
func planWriteBlocked(name, semantic string) string {
	if tool.IsFileWrite(semantic) || (strings.HasPrefix(name, "mcp_") && !mcpReadOnly(name)) {
		return fmt.Sprintf("Tool '%s' is not available in Plan mode — switch to Work mode to make changes.", name)
	}
	return ""
}

// baseline is layer 4: the registered requirement, non-bypassable holds,
// the Ask write carve-out, the Plan-mode write block and a hook's ask.
func (p *plan) baseline() (Decision, bool) {
	name := p.req.Tool
	p.require = requirement(name, p.semantic, p.input, p.call.Shell)
	nb := nonBypassable(name, p.semantic, p.require)
	p.allowLayer = LayerBaseline
	detail := name + " (" + p.semantic + ") " + p.require.Plain()
	effect := EffectNone
	if name == codeModeTool {
		p.changed(release.BaselineWithoutYolo)
		if !p.snap.Policy.CodeMode.Set {
			p.changed(release.CodeModeDefaultOn)
		}
	}
	if p.require != ReqAuto && !p.s.autoApprove {
		p.requireApproval(preparedDescription(name, p.input), nil, nb)
		effect = EffectAsk
		if nb {
			detail += "; non-bypassable hold"
		}
		if !p.force && p.carveOut() {
			p.need, effect = false, EffectAllow
			detail += "; Ask write carve-out: every target stays inside the git workspace"
		}
	} else if p.require != ReqAuto {
		detail += "; auto-approved by " + postureOrMode(p.s.authority)
	}
	if p.s.mode == session.Plan {
		if reason := planWriteBlocked(name, p.semantic); reason != "" {
			p.trace(LayerBaseline, EffectDeny, detail)
			return p.finish(Deny, LayerBaseline, reason, nil), true
		}
	}
	if p.withheldHook {
		// Codewhale runs the hook once the user approves the file's bytes
		// there, and codewhale-ls cannot see that approval
		// (docs/codewhale/releases/choices.md, B.3-digest): allowing could
		// be looser than Codewhale, running the hook would run repository
		// code nobody approved, so a human decides, whatever the posture.
		p.requireApproval(withheldHookHold(p.snap), nil, true)
		effect, detail = EffectAsk, detail+"; an unapproved project hook matches: held for a human"
	}
	if p.hookAsk && !p.s.autoApprove {
		p.requireApproval("A ToolCallBefore hook requires explicit approval for this call.", nil, false)
		effect, detail = EffectAsk, detail+"; a hook asked for approval"
	}
	p.trace(LayerBaseline, effect, detail)
	return Decision{}, false
}

// preparedDescription is what the approval card says a call does: the
// code's first non-blank line for execute_tools (B.4), else the generic
// line.
func preparedDescription(name string, input map[string]any) string {
	if name == codeModeTool {
		code, _ := input["code"].(string)
		for _, line := range strings.Split(code, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return codeModeTool + ": " + line
			}
		}
		return codeModeTool + ": "
	}
	return "Tool execution requires approval"
}

// carveOut is the Ask write carve-out of §4.3.
func (p *plan) carveOut() bool {
	if p.require != ReqSuggest || p.s.posture != session.Ask || p.s.autoApprove || !tool.IsFileWrite(p.semantic) {
		return false
	}
	switch p.s.mode {
	case session.Agent, session.Operate:
	default:
		return false
	}
	return p.writeBounded()
}

// writeBounded reports whether the call's write targets all qualify for
// the carve-out (inside the git workspace, not sensitive).
func (p *plan) writeBounded() bool {
	if p.bounded == nil {
		b := writetarget.Qualifies(p.req.Workspace, p.writeTargets())
		p.bounded = &b
	}
	return *p.bounded
}

// writeTargets are the files a write-capable call touches.
func (p *plan) writeTargets() []string {
	if p.semantic == "apply_patch" {
		return p.patchTargets
	}
	if path, ok := p.input["path"].(string); ok {
		return []string{path}
	}
	return nil
}
