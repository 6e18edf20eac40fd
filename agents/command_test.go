package agents

import (
	"strings"
	"testing"
)

// TestCommandShapes: every agent's shell command is decided in each shape
// its tool takes it in, an argv as the line that runs exactly that argv,
// and any other shape, or none, is refused with the field named (issue 23
// point 4: Codex's {"command": ["git", "push"]} passed every rule).
func TestCommandShapes(t *testing.T) {
	// events: each agent's shell call with the command field's JSON in
	// place of %s.
	events := map[string]string{
		"claude-code Bash":             `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%s}}`,
		"claude-code run_in_terminal":  `{"hook_event_name":"PreToolUse","tool_name":"run_in_terminal","tool_input":{"command":%s}}`,
		"codex Bash":                   `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%s}}`,
		"codex shell":                  `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":%s,"workdir":"/w","timeout_ms":1000}}`,
		"codex local_shell":            `{"hook_event_name":"PreToolUse","tool_name":"local_shell","tool_input":{"command":%s}}`,
		"codex exec_command":           `{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":%s}}`,
		"gemini-cli run_shell_command": `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":%s}}`,
		"copilot-cli bash":             `{"toolName":"bash","toolArgs":{"command":%s}}`,
		"cursor beforeShellExecution":  `{"hook_event_name":"beforeShellExecution","command":%s,"cwd":"/w"}`,
		"cursor Shell":                 `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":%s}}`,
	}
	// Where the agent's tool takes an argv too.
	argv := map[string]bool{"codex shell": true, "codex local_shell": true}
	field := func(call string) string {
		if call == "codex exec_command" {
			return `"cmd"`
		}
		return `"command"`
	}
	for _, c := range []struct {
		value string // the command field's JSON
		argv  bool   // an array: decided only where the tool takes an argv
		line  string // the line decided; "" where refused in every tool
		why   string // in the refusal, after the field's name, where the tool takes this shape
	}{
		{`"git push"`, false, "git push", ""},
		{`"echo 'a b'"`, false, "echo 'a b'", ""},
		{`["git","push"]`, true, "git push", ""},
		{`["bash","-lc","git push"]`, true, "bash -lc 'git push'", ""},
		{`["echo","it's","a\nb","héllo","$HOME"]`, true, `echo 'it'\''s' 'a` + "\n" + `b' 'héllo' '$HOME'`, ""},
		{`["FOO=1","git","push"]`, true, "'FOO=1' git push", ""},
		{`["git",1]`, true, "", "[1] is a number: an argv holds only strings"},
		{`["git",null]`, true, "", "[1] is null: an argv holds only strings"},
		{`["git",["push"]]`, true, "", "[1] is an array: an argv holds only strings"},
		{`["git","a\u0000b"]`, true, "", "[1] holds a NUL byte"},
		{`[]`, true, "", " is an empty array"},
		{`5`, false, "", " is a number, where"},
		{`true`, false, "", " is a boolean, where"},
		{`{"argv":["git","push"]}`, false, "", " is an object, where"},
		{`null`, false, "", ""},
	} {
		for call, event := range events {
			agent, _, _ := strings.Cut(call, " ")
			a, _ := Lookup(agent)
			got, err := a.Parse([]byte(strings.Replace(event, "%s", c.value, 1)))
			line, why := c.line, c.why
			if c.argv && !argv[call] {
				line, why = "", " is an array, where"
			}
			if line != "" {
				if err != nil || got.Tool != "exec_shell" || got.Input["command"] != line {
					t.Errorf("%s %s: %s %q (%v), want exec_shell %q", call, c.value, got.Tool, got.Input["command"], err, line)
				}
				continue
			}
			switch {
			case err == nil:
				t.Errorf("%s %s: decided as %s %v, want a refusal", call, c.value, got.Tool, got.Input)
			case !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), field(call)+why):
				t.Errorf("%s %s: refusal %q does not say %s%s", call, c.value, err, field(call), why)
			}
		}
	}
}

// TestCommandMissing: a shell call without its command is refused, naming
// the fields it could have been in.
func TestCommandMissing(t *testing.T) {
	for agent, event := range map[string]string{
		"claude-code": `{"tool_name":"Bash","tool_input":{"description":"x"}}`,
		"codex":       `{"tool_name":"shell","tool_input":{"workdir":"/w"}}`,
		"gemini-cli":  `{"tool_name":"run_shell_command","tool_input":{}}`,
		"copilot-cli": `{"toolName":"bash","toolArgs":{}}`,
		"cursor":      `{"hook_event_name":"beforeShellExecution","cwd":"/w"}`,
	} {
		a, _ := Lookup(agent)
		if call, err := a.Parse([]byte(event)); err == nil || !strings.Contains(err.Error(), "no command") || !strings.Contains(err.Error(), `"command"`) {
			t.Errorf("%s: %v %v, want a refusal naming the command field", agent, call.Input, err)
		}
	}
}
