package agents

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	shellwords "github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
)

// codexTools: Codex gives its hooks every shell call as Bash with the
// command a string (an argv joined and quoted, codex-rs
// core/src/tools/handlers/shell.rs shell_payload_command); shell and
// local_shell are its tools' own names, whose command is an argv in the
// releases where shell's parameters are ShellToolCallParams (command:
// Vec<String>, which local_shell shares) and a string in those where
// they are ShellCommandToolCallParams; exec_command's cmd is a string.
var codexTools = map[string]counterpart{
	"Bash":         codexShell("command", "cmd"),
	"shell":        codexShell("command", "cmd").takingArgv("command"),
	"local_shell":  codexShell("command", "cmd").takingArgv("command"),
	"exec_command": codexShell("cmd", "command"),
	"apply_patch":  patch("patch", "input", "command"),
	// view_image reads a file and sends it to the model (seen reaching the
	// hook with its path): Codewhale's read_media, which the read
	// deny-list covers.
	"view_image":         counterpart{tool: "read_media", fields: map[string][]string{"path": {"path"}}},
	"update_plan":        bookkeeping("update_plan"),
	"create_goal":        bookkeeping("create_goal"),
	"get_goal":           bookkeeping("get_goal"),
	"update_goal":        bookkeeping("update_goal"),
	"tool_search":        bookkeeping("tool_search"),
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
	Name:         "codex",
	Example:      `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`,
	HookTimeout:  600 * time.Second,
	NoAsk:        "codex honours only a deny from a hook, so it cannot ask its user for one",
	SessionField: "session_id",
	Settings: Settings{
		// CODEX_HOME replaces ~/.codex; Codex reads hooks.json in each
		// config folder, the user's being CODEX_HOME (codex-rs
		// utils/home-dir find_codex_home, hooks/src/engine/discovery.rs).
		Project: ".codex/hooks.json", User: "hooks.json", UserDir: ".codex", DirVar: "CODEX_HOME",
		Events: [][]string{{"hooks", "PreToolUse"}}, Entry: matcherEntry(1), Skeleton: "{}\n", Exit2Blocks: true,
		ProjectNote: "Codex reads a project's hooks only in a project you trusted, and runs a hook only once you have trusted it in /hooks (`codex exec` skips an untrusted hook without a word): until then, sessions run without this entry. Codex 0.114.0 to 0.123.x run hooks only with `[features] codex_hooks = true` in ~/.codex/config.toml (experimental then); from 0.124.0 hooks are on by default (openai/codex#19012), and `[features] hooks = false` (0.130.0's name for it) turns them off.",
		UserNote:    "Codex runs a hook only once you have trusted it in /hooks (`codex exec` skips an untrusted hook without a word): until then, sessions run without this entry. Codex 0.114.0 to 0.123.x run hooks only with `[features] codex_hooks = true` in ~/.codex/config.toml (experimental then); from 0.124.0 hooks are on by default (openai/codex#19012), and `[features] hooks = false` (0.130.0's name for it) turns them off.",
	},
	parse: codexParse,
	render: func(r Reply) Output {
		if r.Verdict == gate.Allow {
			return Output{}
		}
		return Output{Stdout: preToolUseAnswer(r), Stderr: r.Reason + "\n", Exit: 2}
	},
}

// codexParse reads a PreToolUse event. Codex types into a running command
// with write_stdin, which never reaches a hook, and drops a command's tty
// flag before the hook (both seen in Codex 0.169.1): a command that keeps
// running and runs what it reads on standard input (a shell, an
// interpreter or a client started without a program) can later be given
// any command, unseen. A human decides whether to start one.
func codexParse(event map[string]json.RawMessage) (Call, error) {
	call, err := parsePreToolUse("PreToolUse", codexTools)(event)
	if err != nil {
		return Call{}, err
	}
	if call.Tool != "exec_shell" {
		return call, nil
	}
	command, _ := call.Input["command"].(string)
	tty, _ := call.Input["tty"].(bool)
	if reader := stdinProgram(command); tty || reader != "" {
		what := "a command started with a terminal"
		if reader != "" {
			what = fmt.Sprintf("%q, which runs what it reads on standard input,", reader)
		}
		call.NeedsHuman = fmt.Sprintf("Codex types into a running command with write_stdin, which no hook sees, so %s could later be given any command; a human decides whether to start it.", what)
	}
	return call, nil
}

// stdinInterpreters run the program they read on standard input when they
// are given none.
var stdinInterpreters = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "csh": true, "tcsh": true,
	"python": true, "python3": true, "node": true, "deno": true, "bun": true, "ruby": true, "irb": true,
	"perl": true, "php": true, "lua": true, "R": true, "julia": true, "ghci": true, "scala": true, "jshell": true,
	"psql": true, "mysql": true, "sqlite3": true, "redis-cli": true, "mongosh": true,
	"ssh": true, "telnet": true, "nc": true, "ncat": true, "socat": true, "gdb": true, "xargs": true, "parallel": true,
}

// stdinProgram is the first command command could run that is an
// interpreter reading its program from standard input (no program named,
// or `-`, `-i`, `-s`), "" if none.
func stdinProgram(command string) string {
	for _, line := range shellwords.Expand(command) {
		words := strings.Fields(line)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") {
			words = words[1:] // VAR=value before the command
		}
		if len(words) == 0 || !stdinInterpreters[path.Base(words[0])] {
			continue
		}
		interactive := true
		for _, w := range words[1:] {
			switch {
			case w == "-" || w == "-i" || w == "-s":
				interactive = true
			case !strings.HasPrefix(w, "-"):
				interactive = false
			}
		}
		// xargs and parallel run commands built from their input, and ssh
		// runs a remote shell on it whatever its arguments say.
		if interactive || path.Base(words[0]) == "xargs" || path.Base(words[0]) == "parallel" || path.Base(words[0]) == "ssh" {
			return path.Base(words[0])
		}
	}
	return ""
}
