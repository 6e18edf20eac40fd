package agents

// Settings is where an agent reads its pre-tool hooks and what
// codewhale-ls's entry there looks like: the facts `codewhale-ls hook
// install` and check's CW700 (package install) act on, kept with the rest
// of the agent so that an agent is added in one place (docs/agents.md,
// "Installing the hook in each agent").
type Settings struct {
	// Project is the settings file install edits, relative to the
	// workspace; User is the one it edits relative to the agent's user
	// directory (UserDir). Both slash-separated.
	Project, User string
	// UserDir is the agent's directory under the home (".claude");
	// DirVar, when set in the environment, names that directory instead
	// (CODEX_HOME), or, with DirVarIsHome, the home it is under.
	UserDir      string
	DirVar       string
	DirVarIsHome bool
	// Events are the key paths of the arrays our entry goes into, in
	// order (Cursor announces shell, MCP and read events separately).
	Events [][]string
	// Entry is our element of each array for the command given.
	Entry func(HookCommand) any
	// Skeleton is the text of a settings file the agent would accept
	// with no hooks, written when the file does not exist.
	Skeleton string
	// Exit2Blocks: the agent blocks the call when the hook exits 2 and
	// lets it run on any other failure, so the command ends in
	// `|| exit 2` and a hook that cannot start (moved binary) blocks.
	Exit2Blocks bool
	// Configured and UserConfigured are globs (relative to the workspace
	// and to UserDir) of the files that configure the agent's hooks,
	// where that is more than the file install edits.
	Configured, UserConfigured []string
	// Switches are the settings that turn all of the agent's hooks off,
	// ours at user level included; the workspace's are listed before the
	// user's, which they override.
	Switches []HooksSwitch
	// ProjectNote says when the agent does not read a project entry at
	// all, measured against the agent (docs/agents.md "Where each entry
	// is read"); UserNote when it does not run even the user's. Both are
	// shown by install and in check's CW700.
	ProjectNote, UserNote string
}

// HooksSwitch is a boolean at Key in File (relative to the workspace, or
// to the agent's UserDir when User is set) that, when it equals Off,
// turns off every hook the agent has.
type HooksSwitch struct {
	File string
	User bool
	Key  []string
	Off  bool
}

// HookCommand is codewhale-ls's hook command for an agent as install
// writes it: for sh, for PowerShell, and the hook timeout in whole
// seconds, which the command also passes as --timeout.
type HookCommand struct {
	Sh, PowerShell string
	Seconds        int
}

// Entries are structs, not maps, so that their keys are written in the
// order the agents' documentation shows them. Every entry states the
// agent's hook timeout in the agent's own field and unit, and the same
// number goes to `--timeout` in the command, so the agent and the hook
// agree on when the agent stops waiting whatever default a host assumes
// (VS Code reads Claude's file but waits 30 s by default, Claude 600 s).
// Timeout fields, checked against each agent's documentation: Claude
// Code `timeout` seconds (https://code.claude.com/docs/en/hooks, and VS
// Code, https://code.visualstudio.com/docs/copilot/customization/hooks),
// Gemini CLI `timeout` milliseconds
// (https://geminicli.com/docs/hooks/reference), Codex `timeout` seconds
// (https://developers.openai.com/codex/hooks), Cursor `timeout` seconds
// (https://cursor.com/docs/hooks), Copilot `timeoutSec`.
type (
	matcherGroup struct {
		Matcher string        `json:"matcher"`
		Hooks   []commandHook `json:"hooks"`
	}
	commandHook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	// cursorHook: failClosed makes Cursor block the call when the hook
	// crashes, times out or answers nothing it can read; without it Cursor
	// runs the tool (https://cursor.com/docs/hooks).
	cursorHook struct {
		Command    string `json:"command"`
		Timeout    int    `json:"timeout"`
		FailClosed bool   `json:"failClosed"`
	}
	copilotHook struct {
		Type       string `json:"type"`
		Bash       string `json:"bash"`
		PowerShell string `json:"powershell"`
		TimeoutSec int    `json:"timeoutSec"`
	}
)

// matcherEntry is the matcher group Claude Code, Gemini CLI and Codex share:
// every tool, one command hook whose timeout is the seconds times unit (1
// for Claude's and Codex's seconds, 1000 for Gemini's milliseconds).
func matcherEntry(unit int) func(HookCommand) any {
	return func(c HookCommand) any {
		return matcherGroup{Matcher: "*", Hooks: []commandHook{{Type: "command", Command: c.Sh, Timeout: c.Seconds * unit}}}
	}
}
