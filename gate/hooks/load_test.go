package hooks

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

func parse(t *testing.T, src string) *tomldoc.Doc {
	t.Helper()
	doc, err := tomldoc.Parse([]byte(src))
	if err != nil {
		t.Fatalf("bad fixture: %v", err)
	}
	return doc
}

func loadUser(t *testing.T, src string) (Config, []problem.Problem) {
	t.Helper()
	doc := parse(t, src)
	table, _ := doc.Root.Sub("hooks")
	return FromUserConfig(table, release.Release{})
}

// want is one expected problem: its code, severity, the text its span
// covers and a fragment of its message.
type want struct {
	code problem.Code
	sev  problem.Severity
	text string
	msg  string
}

func checkProblems(t *testing.T, src string, got []problem.Problem, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		for _, p := range got {
			t.Logf("%s %s %q: %s", p.Code, p.Severity, src[p.Span.Start:p.Span.End], p.Message)
		}
		t.Fatalf("%d problems, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		p := got[i]
		text := src[p.Span.Start:p.Span.End]
		if p.Code != w.code || p.Severity != w.sev || text != w.text || !strings.Contains(p.Message, w.msg) {
			t.Errorf("problem %d = %s %s %q %q\nwant %s %s %q containing %q", i, p.Code, p.Severity, text, p.Message, w.code, w.sev, w.text, w.msg)
		}
	}
}

func TestFromUserConfigValues(t *testing.T) {
	src := `[hooks]
default_timeout_secs = 12
working_dir = "/tmp/h"

[[hooks.hooks]]
event = "tool_call_after"
command = "log"

[[hooks.hooks]]
event = "tool_call_before"
command = "gate.sh"
name = "gate"
timeout_secs = 3
continue_on_error = false
condition = { type = "any", conditions = [{ type = "tool_name", name = "bash" }, { type = "tool_category", category = "file_write" }] }
`
	cfg, problems := loadUser(t, src)
	checkProblems(t, src, problems, nil)
	if !cfg.Enabled || cfg.Rejected || cfg.DefaultTimeoutSecs != 12 || cfg.WorkingDir != "/tmp/h" || len(cfg.Hooks) != 2 {
		t.Fatalf("%+v", cfg)
	}
	first, gate := cfg.Hooks[0], cfg.Hooks[1]
	if first.TimeoutSecs != 30 || first.Background || !first.ContinueOnError || first.Condition.Type != Always || first.Index != 0 || first.Source != Global {
		t.Errorf("defaults: %+v", first)
	}
	if src[first.Span.Start:first.Span.End] != "hooks.hooks" {
		t.Errorf("hook span %q", src[first.Span.Start:first.Span.End])
	}
	if gate.Name != "gate" || gate.TimeoutSecs != 3 || gate.ContinueOnError || gate.Index != 1 || gate.Event != ToolCallBefore {
		t.Errorf("gate: %+v", gate)
	}
	c := gate.Condition
	if c.Type != AnyOf || len(c.Conditions) != 2 || c.Conditions[0].Arg != "bash" || c.Conditions[1].Type != ToolCategory {
		t.Errorf("condition: %+v", c)
	}
	if arg := c.Conditions[1].ArgSpan; src[arg.Start:arg.End] != `"file_write"` {
		t.Errorf("arg span %q", src[arg.Start:arg.End])
	}
	if cfg.timeout(gate).Seconds() != 12 {
		t.Errorf("default_timeout_secs does not replace timeout_secs")
	}
}

func TestFromUserConfigAbsentAndDisabled(t *testing.T) {
	if cfg, problems := FromUserConfig(nil, release.Release{}); !cfg.Enabled || cfg.Rejected || problems != nil {
		t.Errorf("%+v %v", cfg, problems)
	}
	cfg, _ := loadUser(t, "[hooks]\nenabled = false\n")
	if cfg.Enabled {
		t.Error("enabled = false ignored")
	}
}

func TestLoaderProblems(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		kept     int
		rejected bool
		wants    []want
	}{
		{"unknown keys are ignored", `[hooks]
verbose = true
[[hooks.hooks]]
event = "session_start"
comand = "x"
command = "y"
timeout = 5
condition = { type = "mode", mode = "plan", name = "x" }
`, 1, false, []want{
			{"CW002", problem.Warning, "verbose", "Codewhale ignores unknown key `verbose` in the [hooks] table"},
			{"CW002", problem.Warning, "comand", "did you mean `command`?"},
			{"CW002", problem.Warning, "timeout", "did you mean `timeout_secs`?"},
			{"CW002", problem.Warning, "name", "in a mode condition"},
		}},
		{"unknown event fails the file", `[[hooks.hooks]]
event = "tool_call_befor"
command = "x"
[[hooks.hooks]]
event = "session_start"
command = "ok"
`, 0, true, []want{
			{"CW003", problem.Error, `"tool_call_befor"`, "did you mean `tool_call_before`? Codewhale cannot parse config.toml and refuses to start"},
			{"CW005", problem.Error, `"tool_call_befor"`, "Codewhale refuses to start"},
		}},
		{"missing event and command", `[[hooks.hooks]]
name = "x"
`, 0, true, []want{
			{"CW004", problem.Error, "hooks.hooks", "has no `event`"},
			{"CW004", problem.Error, "hooks.hooks", "has no `command`"},
			{"CW005", problem.Error, "hooks.hooks", "refuses to start"},
		}},
		{"wrong types", `[hooks]
enabled = "yes"
[[hooks.hooks]]
event = "tool_call_before"
command = ["x"]
timeout_secs = -1
background = 1
condition = { type = "exit_code", code = "2" }
`, 0, true, []want{
			{"CW003", problem.Error, `"yes"`, "`enabled` must be a boolean, not a string"},
			{"CW003", problem.Error, `["x"]`, "`command` must be a string, not an array"},
			{"CW003", problem.Error, "-1", "`timeout_secs` must not be negative"},
			{"CW003", problem.Error, "1", "`background` must be a boolean, not an integer"},
			{"CW003", problem.Error, `"2"`, "`code` must be an integer"},
			{"CW005", problem.Error, `"yes"`, "refuses to start"},
		}},
		{"bad conditions fail the file", `[[hooks.hooks]]
event = "tool_call_before"
command = "x"
condition = { type = "toolname", name = "bash" }
[[hooks.hooks]]
event = "tool_call_before"
command = "x"
condition = { type = "tool_name" }
[[hooks.hooks]]
event = "tool_call_before"
command = "x"
condition = "always"
`, 0, true, []want{
			{"CW003", problem.Error, `"toolname"`, "unknown condition type \"toolname\"; did you mean `tool_name`?"},
			{"CW004", problem.Error, `{ type = "tool_name" }`, "has no `name`"},
			{"CW003", problem.Error, `"always"`, "must be a table"},
			{"CW005", problem.Error, `"toolname"`, "refuses to start"},
		}},
		{"rejected at load", `[hooks]
default_timeout_secs = 0
[[hooks.hooks]]
event = "session_start"
command = "x"
condition = { type = "tool_name", name = "bash" }
[[hooks.hooks]]
event = "shell_env"
command = "x"
condition = { type = "all", conditions = [{ type = "always" }, { type = "mode", mode = "Plan" }] }
[[hooks.hooks]]
event = "tool_call_before"
command = "x"
condition = { type = "exit_code", code = 1 }
[[hooks.hooks]]
event = "tool_call_after"
command = "   "
timeout_secs = 0
condition = { type = "exit_code", code = 1 }
[[hooks.hooks]]
event = "turn_end"
command = "kept"
`, 1, false, []want{
			{"CW003", problem.Error, "0", "ignores it: every hook keeps its own timeout_secs"},
			{"CW300", problem.Error, `{ type = "tool_name", name = "bash" }`, "Codewhale drops this hook at load: a tool_name condition never applies to session_start"},
			{"CW300", problem.Error, `{ type = "mode", mode = "Plan" }`, "mode condition is not supported on shell_env"},
			{"CW300", problem.Error, `{ type = "exit_code", code = 1 }`, "only applies to tool_call_after and on_error, not tool_call_before"},
			{"CW300", problem.Error, "0", "timeout_secs = 0"},
			{"CW300", problem.Error, `"   "`, "command is empty"},
		}},
		{"fails open and observer only", `[[hooks.hooks]]
event = "tool_call_before"
command = "x"
[[hooks.hooks]]
event = "tool_call_before"
command = "x"
continue_on_error = true
[[hooks.hooks]]
event = "tool_call_before"
command = "x"
continue_on_error = false
background = true
[[hooks.hooks]]
event = "message_submit"
command = "x"
background = true
[[hooks.hooks]]
event = "shell_env"
command = "x"
background = true
[[hooks.hooks]]
event = "tool_call_before"
command = "x"
continue_on_error = false
`, 6, false, []want{
			{"CW301", problem.Warning, "hooks.hooks", "fails open"},
			{"CW301", problem.Warning, "true", "fails open"},
			{"CW301", problem.Warning, "true", "only observes and cannot deny"},
			{"CW301", problem.Warning, "true", "background message_submit hook"},
			{"CW301", problem.Warning, "true", "runs in the foreground"},
		}},
		{"never matching tool conditions", `[[hooks.hooks]]
event = "tool_call_before"
command = "x"
continue_on_error = false
condition = { type = "any", conditions = [
  { type = "tool_name", name = "exec_shell" },
  { type = "tool_name", name = "mcp__github__*" },
  { type = "tool_category", category = "Shell" },
  { type = "tool_category", category = "network" },
] }
`, 1, false, []want{
			{"CW302", problem.Warning, `"exec_shell"`, `use tool_name = "bash" or tool_category = "shell"`},
			{"CW302", problem.Warning, `"mcp__github__*"`, `(try "mcp_github_*")`},
			{"CW302", problem.Warning, `"Shell"`, "did you mean `shell`?"},
			{"CW302", problem.Warning, `"network"`, "computes only shell, safe, file_write or other"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, problems := loadUser(t, c.src)
			checkProblems(t, c.src, problems, c.wants)
			if len(cfg.Hooks) != c.kept || cfg.Rejected != c.rejected {
				t.Errorf("kept %d rejected %v", len(cfg.Hooks), cfg.Rejected)
			}
		})
	}
}

func TestFileRejectionRelatesEveryCause(t *testing.T) {
	src := "[[hooks.hooks]]\nevent = 1\ncommand = \"x\"\n[[hooks.hooks]]\nevent = \"nope\"\ncommand = \"x\"\n"
	_, problems := loadUser(t, src)
	whole := problems[len(problems)-1]
	if whole.Code != "CW005" || len(whole.Related) != 2 {
		t.Fatalf("%+v", whole)
	}
	var texts []string
	for _, r := range whole.Related {
		texts = append(texts, src[r.Span.Start:r.Span.End])
	}
	if !reflect.DeepEqual(texts, []string{"1", `"nope"`}) {
		t.Errorf("related %q", texts)
	}
}

func TestFromProjectFile(t *testing.T) {
	src := `enabled = false
default_timeout_secs = 5
working_dir = "/x"
[[hooks]]
event = "tool_call_before"
command = "first"
continue_on_error = false
[[hooks]]
event = "tool_call_before"
command = ""
continue_on_error = false
[[hooks]]
event = "tool_call_before"
command = "third"
continue_on_error = false
`
	cfg, problems := FromProjectFile(parse(t, src), release.Release{})
	checkProblems(t, src, problems, []want{
		{"CW002", problem.Warning, "enabled", "Codewhale ignores `enabled` in a project hooks.toml"},
		{"CW002", problem.Warning, "default_timeout_secs", "ignores `default_timeout_secs`"},
		{"CW002", problem.Warning, "working_dir", "ignores `working_dir`"},
		{"CW300", problem.Error, `""`, "command is empty"},
	})
	if cfg.Rejected || !cfg.Enabled || cfg.DefaultTimeoutSecs != 0 || cfg.WorkingDir != "" || len(cfg.Hooks) != 2 {
		t.Fatalf("%+v", cfg)
	}
	if h := cfg.Hooks[1]; h.Index != 2 || h.Source != Project || h.Command != "third" {
		t.Errorf("a dropped entry shifted the index of a good one: %+v", h)
	}
	if cfg, problems := FromProjectFile(nil, release.Release{}); !cfg.Enabled || cfg.Rejected || problems != nil {
		t.Errorf("no file: %+v %v", cfg, problems)
	}
}

func TestFromProjectFileRejections(t *testing.T) {
	src := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\ncontinue_on_error = \"no\"\n"
	cfg, problems := FromProjectFile(parse(t, src), release.Release{})
	checkProblems(t, src, problems, []want{
		{"CW003", problem.Error, `"no"`, "loads none of the project hooks"},
		{"CW005", problem.Error, `"no"`, "none of its hooks run (global hooks still do)"},
	})
	if !cfg.Rejected || len(cfg.Hooks) != 0 {
		t.Errorf("%+v", cfg)
	}
	big := "# " + strings.Repeat("x", MaxProjectFileBytes) + "\n[[hooks]]\nevent = \"session_start\"\ncommand = \"x\"\n"
	cfg, problems = FromProjectFile(parse(t, big), release.Release{})
	if !cfg.Rejected || len(cfg.Hooks) != 0 || len(problems) != 1 || problems[0].Code != "CW005" {
		t.Errorf("%+v %+v", cfg, problems)
	}
}
