package agents

import (
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

var codexTools = map[string]counterpart{
	"Bash":         shell("command", "cmd"),
	"shell":        shell("command", "cmd"),
	"local_shell":  shell("command", "cmd"),
	"exec_command": shell("cmd", "command"),
	"apply_patch":  patch("patch", "input", "command"),
}

// codex: PreToolUse {tool_name, tool_input, tool_use_id, cwd}. Codex
// honours only a deny (an allow or ask answer counts as a failed hook and
// the tool runs), so allow is silence with exit 0, and deny is both the
// JSON deny and exit 2 with the reason on stderr.
var codex = &Agent{
	Name:        "codex",
	HookTimeout: 600 * time.Second,
	CanAsk:      false,
	parse:       parsePreToolUse("PreToolUse", codexTools),
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{}
		}
		return Output{Stdout: preToolUseAnswer(r), Stderr: r.Reason + "\n", Exit: 2}
	},
}
