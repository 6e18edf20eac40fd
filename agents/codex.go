package agents

import (
	"encoding/json"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

var codexTools = map[string]counterpart{
	"Bash":         codexShell("command", "cmd"),
	"shell":        codexShell("command", "cmd"),
	"local_shell":  codexShell("command", "cmd"),
	"exec_command": codexShell("cmd", "command"),
	"apply_patch":  patch("patch", "input", "command"),
	// view_image reads a file and sends it to the model (seen reaching the
	// hook with its path): Codewhale's read_media, which the read
	// deny-list covers.
	"view_image":         counterpart{tool: "read_media", fields: map[string][]string{"path": {"path"}}},
	"update_plan":        bookkeeping("update_plan"),
	"request_user_input": bookkeeping("request_user_input"),
	"web_search":         webSearch("query"),
}

// codexShell is a Codex shell call. Its request to run outside Codex's
// sandbox (sandbox_permissions "require_escalated", or the older
// with_escalated_permissions: true, with a justification) is Codewhale's
// escalation to danger-full-access, which layer 9 puts to a human;
// "use_default" and false ask for nothing. workdir is the cwd.
func codexShell(command ...string) counterpart {
	return shell(command...).
		with("sandbox_permissions", "sandbox_permissions", "with_escalated_permissions").
		translating("sandbox_permissions", map[any]any{
			"require_escalated": "danger-full-access", true: "danger-full-access",
			"use_default": nil, false: nil, nil: nil,
		}).
		with("justification", "justification").keepingOnlyWith("justification", "sandbox_permissions").
		with("cwd", "workdir").
		with("timeout_ms", "timeout_ms").with("tty", "tty").
		ignoring("yield_time_ms", "max_output_tokens")
}

// codex: PreToolUse {tool_name, tool_input, tool_use_id, cwd}. Codex
// honours only a deny (an allow or ask answer counts as a failed hook and
// the tool runs), so allow is silence with exit 0, and deny is both the
// JSON deny and exit 2 with the reason on stderr.
var codex = &Agent{
	Name:        "codex",
	HookTimeout: 600 * time.Second,
	NoAsk:       "codex honours only a deny from a hook, so it cannot ask its user for one",
	parse:       codexParse,
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{}
		}
		return Output{Stdout: preToolUseAnswer(r), Stderr: r.Reason + "\n", Exit: 2}
	},
}

// codexParse reads a PreToolUse event. Codex types into a running command
// with write_stdin, which never reaches a hook (seen in Codex 0.169.1): a
// command started with a terminal (tty) can later be given any input,
// another command included, unseen, so a human decides whether to start
// one.
func codexParse(event map[string]json.RawMessage) (Call, error) {
	call, err := parsePreToolUse("PreToolUse", codexTools)(event)
	if err != nil {
		return Call{}, err
	}
	if tty, _ := call.Input["tty"].(bool); tty && call.Tool == "exec_shell" {
		call.NeedsHuman = "Codex types into a running command with write_stdin, which no hook sees, so a command started with a terminal could later be given any input, another command included; a human decides whether to start it."
	}
	return call, nil
}
