package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHookDecidesEveryCommandShape: under Full Access, with a permissions
// rule denying `git push`, each agent's shell call is decided in each
// shape its tool takes the command in (Codex's shell and local_shell an
// argv too, decided as the line that runs it), and any other shape is a
// deny naming the field, end to end through `hook AGENT` (issue 23 point
// 4: {"command": ["git", "push"]} passed every rule and Codex ran it).
func TestHookDecidesEveryCommandShape(t *testing.T) {
	w := newHookWorld(t)
	writeFile(t, filepath.Join(w.codewhaleHome, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n")
	writeFile(t, filepath.Join(w.codewhaleHome, "settings.toml"), "permission_posture = \"full-access\"\n")
	rule := "denied prefix rule 'git push'"
	// shell is each agent's shell event with its command field's JSON in
	// place of %s.
	shell := map[string]string{
		"claude-code": `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%s},"permission_mode":"default"}`,
		"codex":       `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":%s,"workdir":"$WS"}}`,
		"gemini-cli":  `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":%s}}`,
		"copilot-cli": `{"toolName":"bash","toolArgs":{"command":%s}}`,
		"cursor":      `{"hook_event_name":"beforeShellExecution","command":%s}`,
	}
	for _, c := range []struct {
		agent, event string
		deny         string // in the reason; "" for an allow
	}{
		// Full Access is in force: a command no rule names runs.
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`, ""},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["git","status"]}}`, ""},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push"}}`, rule},
		// An argv is the line that runs it.
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["git","push"]}}`, rule},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["git","push","origin","main"],"workdir":"$WS","timeout_ms":1000}}`, rule},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["bash","-lc","git push"]}}`, rule},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"local_shell","tool_input":{"command":["git","push"]}}`, rule},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"local_shell","tool_input":{"command":["bash","-lc","cd sub && git push"]}}`, rule},
		// Any other shape is a deny naming the field.
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["git",1]}}`, `"command"[1] is a number`},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":[]}}`, `"command" is an empty array`},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["git","status"]}}`, `"command" is an array, where Bash takes its command as a string`},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"exec_command","tool_input":{"cmd":["git","status"]}}`, `"cmd" is an array`},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"workdir":"$WS"}}`, `gives no command ("command" or "cmd")`},
	} {
		t.Run(c.agent+" "+c.event, func(t *testing.T) {
			hookAnswers(t, w, c.agent, c.event, c.deny)
		})
	}
	for agent, event := range shell {
		for value, deny := range map[string]string{
			`"git push"`:                rule,
			`"ls"`:                      "",
			`["git","push"]`:            `"command" is an array`,
			`["bash","-lc","git push"]`: `"command" is an array`,
			`null`:                      `"command"`,
			`5`:                         `"command" is a number`,
			`{"cmd":"git push"}`:        `"command" is an object`,
		} {
			if agent == "codex" && strings.HasPrefix(value, "[") {
				deny = rule // Codex's shell takes an argv
			}
			t.Run(agent+" "+value, func(t *testing.T) {
				hookAnswers(t, w, agent, strings.Replace(event, "%s", value, 1), deny)
			})
		}
	}
}

// hookAnswers runs `hook agent` on event (cwd the workspace) and checks
// the agent is told deny with a reason holding deny, or allowed where
// deny is "".
func hookAnswers(t *testing.T, w hookWorld, agent, event, deny string) {
	t.Helper()
	event = strings.ReplaceAll(event, "$WS", w.ws)
	event = strings.Replace(event, "{", `{"cwd":"`+w.ws+`",`, 1)
	code, out, errOut := runCLI(t, event, "hook", agent, "--codewhale-version", "0.10.1")
	denied := map[string]string{
		"claude-code": `"permissionDecision":"deny"`, "codex": `"permissionDecision":"deny"`,
		"gemini-cli": `"decision":"deny"`, "copilot-cli": `"permissionDecision":"deny"`, "cursor": `"permission":"deny"`,
	}[agent]
	switch {
	case deny == "" && (strings.Contains(out, denied) || agent != "cursor" && out != "" || agent == "cursor" && !strings.Contains(out, `"permission":"allow"`)):
		t.Errorf("not allowed: exit %d, stdout %s, stderr %s", code, out, errOut)
	case deny != "" && (!strings.Contains(out, denied) || !strings.Contains(out, strings.ReplaceAll(deny, `"`, `\"`))):
		t.Errorf("want a deny saying %s: exit %d, stdout %s, stderr %s", deny, code, out, errOut)
	case deny != "" && agent == "codex" && (code != 2 || !strings.Contains(errOut, deny)):
		t.Errorf("Codex's deny is exit 2 with the reason on stderr: exit %d, stderr %s", code, errOut)
	}
}
