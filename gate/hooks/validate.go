package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// retiredToolNames are legacy names that live model calls no longer use,
// with the name or category a condition should use instead.
var retiredToolNames = map[string]string{
	"exec_shell": "tool_name = \"bash\" or tool_category = \"shell\"",
	"write_file": "tool_name = \"write\" or tool_category = \"file_write\"",
	"read_file":  "tool_name = \"read\" or tool_category = \"safe\"",
	"edit_file":  "tool_name = \"edit\" or tool_category = \"file_write\"",
}

// validate applies Codewhale's per-entry load checks (docs/codewhale/pipeline.md §3.3)
// and the lints of §11; it reports whether Codewhale keeps the hook.
func (l *loader) validate(h Hook, es hookEntries) bool {
	keep := true
	drop := func(span problem.Span, reason string) {
		keep = false
		l.report(problem.HookDropped, problem.Error, span, "Codewhale drops this hook at load: "+reason)
	}
	l.checkCondition(h.Event, h.Condition, drop)
	if es.timeout != nil && h.TimeoutSecs == 0 {
		drop(es.timeout.Value.Span, "timeout_secs = 0 is not allowed")
	}
	if es.command != nil && strings.TrimSpace(h.Command) == "" {
		drop(es.command.Value.Span, "its command is empty")
	}
	if !keep {
		return false
	}
	switch {
	case h.Background && h.Event == ShellEnv:
		l.report(problem.HookFailsOpen, problem.Warning, es.background.Value.Span,
			"Codewhale does not honour background = true on shell_env: this hook runs in the foreground")
	case h.Background && h.Event.steers():
		l.report(problem.HookFailsOpen, problem.Warning, es.background.Value.Span, fmt.Sprintf(
			"Codewhale queues this background %s hook and never waits for it: it only observes and cannot deny, ask or rewrite", h.Event))
	case h.Event == ToolCallBefore && h.ContinueOnError:
		span := h.Span
		if es.continueOnError != nil {
			span = es.continueOnError.Value.Span
		}
		l.report(problem.HookFailsOpen, problem.Warning, span,
			"this tool_call_before hook fails open: with continue_on_error = true, Codewhale runs the call anyway when the hook times out, crashes or exits without a decision; set continue_on_error = false to make it a strict gate")
	}
	return true
}

// checkCondition rejects conditions the event can never satisfy and lints
// names no real call carries, descending into all/any.
func (l *loader) checkCondition(ev Event, c Condition, drop func(problem.Span, string)) {
	switch c.Type {
	case ToolName, ToolCategory:
		if !ev.hasToolIdentity() {
			drop(c.Span, fmt.Sprintf("a %s condition never applies to %s, which names no tool", c.Type, ev))
		}
		l.lintToolCondition(c)
	case ModeIs:
		if ev == ShellEnv {
			drop(c.Span, "a mode condition is not supported on shell_env")
		}
		l.lintModeCondition(c)
	case ExitCodeIs:
		if !ev.hasExitCode() {
			drop(c.Span, fmt.Sprintf("an exit_code condition only applies to tool_call_after and on_error, not %s", ev))
		}
	case AllOf, AnyOf:
		for _, sub := range c.Conditions {
			l.checkCondition(ev, sub, drop)
		}
	}
}

// lintModeCondition warns of a mode the release's engine never reports:
// since release.HookModeThree a yolo or auto session runs as Agent.
func (l *loader) lintModeCondition(c Condition) {
	mode := ascii.Lower(c.Arg)
	if !l.release.Has(release.HookModeThree) || (mode != "yolo" && mode != "auto") {
		return
	}
	l.report(problem.HookToolNameNeverMatches, problem.Warning, c.ArgSpan, fmt.Sprintf(
		"mode %q never matches in Codewhale %s: its modes are agent, plan and operate, and a session started in yolo or auto mode runs as agent (%s)",
		c.Arg, l.release.Name(), release.HookModeThree))
}

func (l *loader) lintToolCondition(c Condition) {
	never := func(msg string) { l.report(problem.HookToolNameNeverMatches, problem.Warning, c.ArgSpan, msg) }
	if c.Type == ToolCategory {
		if !slices.Contains(Categories, c.Arg) {
			never(fmt.Sprintf("tool_category %q never matches: Codewhale computes only shell, safe, file_write or other%s",
				c.Arg, problem.DidYouMean(c.Arg, Categories)))
		}
		return
	}
	if instead, retired := retiredToolNames[c.Arg]; retired && len(toolNames(l.release, c.Arg)) == 1 {
		never(fmt.Sprintf("tool_name %q is a retired name: live calls are named bash/Bash, write, read, edit or File, so this condition does not fire for them; use %s",
			c.Arg, instead))
	}
	if live, ok := tool.LiveMCPName(c.Arg); ok {
		never(fmt.Sprintf("tool_name %q never matches: MCP tools are called mcp_<server>_<tool> with single underscores (try %q)",
			c.Arg, live))
	}
}
