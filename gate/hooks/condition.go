package hooks

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// ConditionType is the `type` tag of a hook condition.
type ConditionType string

const (
	Always       ConditionType = "always"
	ToolName     ConditionType = "tool_name"
	ToolCategory ConditionType = "tool_category"
	ModeIs       ConditionType = "mode"
	ExitCodeIs   ConditionType = "exit_code"
	AllOf        ConditionType = "all"
	AnyOf        ConditionType = "any"
)

// Condition decides whether a hook fires for an event. The zero value
// (Type "") behaves as Always, the default of an entry without one.
type Condition struct {
	Type ConditionType
	// Arg is the name (tool_name), category (tool_category) or mode (mode).
	Arg        string
	Code       int64       // exit_code
	Conditions []Condition // all, any
	Span       problem.Span
	ArgSpan    problem.Span // the value of name/category/mode/code/conditions
}

// MatchContext is what a condition is evaluated against.
type MatchContext struct {
	ToolName string         // as called: bash, File, mcp_x_y
	Input    map[string]any // the call's input
	Mode     string         // engine spelling: Agent, Plan, Operate, Yolo, Auto
	ExitCode *int64         // nil for events before a tool runs
	// Release is the Codewhale release whose matching applies.
	Release release.Release
}

// Matches evaluates the condition (docs/codewhale/pipeline.md §3.3) as
// m.Release does.
func (c Condition) Matches(m MatchContext) bool {
	switch c.Type {
	case ToolName:
		return slices.ContainsFunc(toolNames(m.Release, m.ToolName), func(name string) bool {
			return toolNameMatches(c.Arg, name)
		})
	case ToolCategory:
		return c.Arg == Category(m.ToolName, m.Input)
	case ModeIs:
		return ascii.Lower(c.Arg) == ascii.Lower(EngineMode(m.Release, m.Mode))
	case ExitCodeIs:
		return m.ExitCode != nil && *m.ExitCode == c.Code
	case AllOf:
		for _, sub := range c.Conditions {
			if !sub.Matches(m) {
				return false
			}
		}
		return true
	case AnyOf:
		for _, sub := range c.Conditions {
			if sub.Matches(m) {
				return true
			}
		}
		return false
	}
	return true
}

// EngineMode is the mode a hook sees for a session in the engine mode
// named mode. Since release.HookModeThree the engine has only Agent, Plan
// and Operate: a session launched as yolo or auto runs as Agent (the
// Full Access meaning travels on the posture), so a mode = "yolo" or
// "auto" condition never matches (docs/codewhale/releases/0.10.0.md B.0,
// B.3).
func EngineMode(r release.Release, mode string) string {
	if r.Has(release.HookModeThree) && (mode == session.Yolo.EngineSpelling() || mode == "Auto") {
		return session.Agent.EngineSpelling()
	}
	return mode
}

// shellAliases are one tool for tool_name conditions since
// release.HookShellAliases (docs/codewhale/releases/0.10.1.md, Part D
// item 8).
var shellAliases = []string{"bash", "Bash", "exec_shell"}

// toolNames are the names a tool_name condition may match for a call named
// name: the name, and under release.HookShellAliases every shell alias.
func toolNames(r release.Release, name string) []string {
	if r.Has(release.HookShellAliases) && slices.Contains(shellAliases, name) {
		return shellAliases
	}
	return []string{name}
}

// changedBy lists the release changes that make matched, the condition's
// answer for m, differ from the oldest release's answer (nil when it is the
// same), so a decision can say which release changed which hooks run.
func (c Condition) changedBy(m MatchContext, matched bool) []release.Change {
	if m.Release.Name() == release.Oldest().Version {
		return nil
	}
	oldest := m
	oldest.Release = release.Release{}
	if matched == c.Matches(oldest) {
		return nil
	}
	var changes []release.Change
	if c.uses(ModeIs) && EngineMode(m.Release, m.Mode) != m.Mode {
		changes = append(changes, release.HookModeThree)
	}
	if c.uses(ToolName) && len(toolNames(m.Release, m.ToolName)) > 1 {
		changes = append(changes, release.HookShellAliases)
	}
	return changes
}

// uses reports whether the condition, or one nested in it, has type t.
func (c Condition) uses(t ConditionType) bool {
	return c.Type == t || slices.ContainsFunc(c.Conditions, func(sub Condition) bool { return sub.uses(t) })
}

// Categories are the only values Category returns.
var Categories = []string{"shell", "safe", "file_write", "other"}

// Category is the tool category a tool_category condition compares with,
// computed from the raw call name and its action (docs/codewhale/pipeline.md §3.3). Note
// that the legacy names read_file/write_file fall into "other".
func Category(name string, input map[string]any) string {
	action, _ := tool.Action(input)
	switch name {
	case "bash", "Bash", "exec_shell", "Run", "run":
		return "shell"
	case "read", "todo_write":
		return "safe"
	case "write", "edit", "apply_patch":
		return "file_write"
	case "File", "file":
		switch action {
		case "read", "list", "search_name", "search_content":
			return "safe"
		}
		return "file_write"
	case "Git", "git":
		switch action {
		case "status", "diff", "log", "show", "blame":
			return "safe"
		}
	}
	return "other"
}

// toolNameMatches is exact, case-sensitive equality unless the pattern has
// a `*`; then it is Codewhale's anchored regex with every `*` turned into
// `.*` and every other character literal, so `*` matches any run of
// characters but a newline. It matches that directly: no regex is built
// per hook and decision. A pattern that is not UTF-8 never matches, as the
// regex would not compile.
func toolNameMatches(pattern, name string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == name
	}
	if !utf8.ValidString(pattern) {
		return false
	}
	parts := strings.Split(pattern, "*")
	first, last := parts[0], parts[len(parts)-1]
	if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	rest := name[len(first) : len(name)-len(last)]
	for _, part := range parts[1 : len(parts)-1] {
		// The leftmost occurrence leaves the most room; the run before it
		// is what a `*` covers.
		i := strings.Index(rest, part)
		if i < 0 || strings.ContainsRune(rest[:i], '\n') {
			return false
		}
		rest = rest[i+len(part):]
	}
	return !strings.ContainsRune(rest, '\n')
}
