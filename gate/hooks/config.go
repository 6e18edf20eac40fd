package hooks

import (
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Event is a hook event name as written in `event = "..."`.
type Event string

const (
	SessionStart     Event = "session_start"
	SessionEnd       Event = "session_end"
	MessageSubmit    Event = "message_submit"
	ToolCallBefore   Event = "tool_call_before"
	ToolCallAfter    Event = "tool_call_after"
	ModeChange       Event = "mode_change"
	OnError          Event = "on_error"
	TurnEnd          Event = "turn_end"
	SubagentSpawn    Event = "subagent_spawn"
	SubagentComplete Event = "subagent_complete"
	ShellEnv         Event = "shell_env"

	// The session-state observers of 0.10.0 (docs/codewhale/releases/0.10.0.md B.3).
	SessionIdle    Event = "session_idle"
	SessionError   Event = "session_error"
	WaitingForUser Event = "waiting_for_user"
	SessionBusy    Event = "session_busy"
)

// events lists every event Codewhale 0.9.10 parses.
var events = []Event{SessionStart, SessionEnd, MessageSubmit, ToolCallBefore, ToolCallAfter,
	ModeChange, OnError, TurnEnd, SubagentSpawn, SubagentComplete, ShellEnv}

// stateEvents are the observers release.FifteenHookEvents adds. None has
// a tool identity or an exit code, so the load checks reject tool_name,
// tool_category and exit_code conditions on them as on any such event.
var stateEvents = []Event{SessionIdle, SessionError, WaitingForUser, SessionBusy}

// Events lists every event release r parses; any other name fails the file.
func Events(r release.Release) []Event {
	if r.Has(release.FifteenHookEvents) {
		return append(events[:len(events):len(events)], stateEvents...)
	}
	return events
}

// hasToolIdentity reports whether the event's context names a tool, which
// tool_name and tool_category conditions need.
func (e Event) hasToolIdentity() bool {
	return e == ToolCallBefore || e == ToolCallAfter || e == ShellEnv || e == OnError
}

// hasExitCode reports whether the event's context carries an exit code.
func (e Event) hasExitCode() bool { return e == ToolCallAfter || e == OnError }

// steers reports whether Codewhale waits for the event's hooks to decide
// something (a background hook there only observes).
func (e Event) steers() bool { return e == MessageSubmit || e == ToolCallBefore }

// Source is the file a hook was loaded from.
type Source int

const (
	Global  Source = iota // the user's config.toml [hooks]
	Project               // <workspace>/.codewhale/hooks.toml
)

func (s Source) String() string {
	if s == Project {
		return "project"
	}
	return "global"
}

// DefaultTimeoutSecs is a hook's timeout_secs when it sets none.
const DefaultTimeoutSecs = 30

// Hook is one loaded hook entry.
type Hook struct {
	Event           Event
	Command         string
	Name            string // "" when the entry sets none
	TimeoutSecs     uint64
	Background      bool
	ContinueOnError bool
	Condition       Condition
	Source          Source
	Index           int          // position in its file's hooks array
	Span            problem.Span // the entry's [[...]] header or inline table
}

// Config is a hooks file after loading: only hooks Codewhale keeps.
type Config struct {
	Enabled bool
	// DefaultTimeoutSecs, when > 0, replaces every hook's own timeout.
	DefaultTimeoutSecs uint64
	WorkingDir         string // "" = the workspace
	Hooks              []Hook
	// Rejected means the file does not parse as a whole (serde semantics):
	// for config.toml Codewhale refuses to start; for a project hooks.toml
	// it loads none of the project hooks. Hooks is then empty.
	Rejected bool
	// Release is the Codewhale release the file was loaded as; matching
	// follows it too (mode conditions, tool name aliases).
	Release release.Release
}

// Combine appends project hooks after the global ones, the order in which
// Codewhale runs them. The project file's own settings never apply.
func Combine(global, project Config) Config {
	out := global
	out.Hooks = append(append([]Hook(nil), global.Hooks...), project.Hooks...)
	return out
}

// timeout is the hook's effective timeout under this configuration.
func (c Config) timeout(h Hook) time.Duration {
	secs := h.TimeoutSecs
	if c.DefaultTimeoutSecs > 0 {
		secs = c.DefaultTimeoutSecs
	}
	const maxSecs = uint64(1<<63-1) / uint64(time.Second)
	return time.Duration(min(secs, maxSecs)) * time.Second
}
