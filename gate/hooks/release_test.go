package hooks

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestFifteenEvents is docs/codewhale/releases/0.10.0.md B.3: the four
// session-state observers parse from 0.10.0; at 0.9.10 they are unknown
// and fail the whole file, as any unknown event does at every release.
func TestFifteenEvents(t *testing.T) {
	for _, ev := range []string{"session_idle", "session_error", "waiting_for_user", "session_busy", "no_such_event"} {
		src := "[[hooks]]\nevent = \"" + ev + "\"\ncommand = \"true\"\n"
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			r := release.MustOf(version)
			cfg, problems := FromProjectFile(parse(t, src), r)
			known := ev != "no_such_event" && r.Has(release.FifteenHookEvents)
			if cfg.Rejected == known || (known && len(cfg.Hooks) != 1) {
				t.Errorf("%s at %s: rejected %v, %d hooks", ev, version, cfg.Rejected, len(cfg.Hooks))
			}
			if !known && ev != "no_such_event" && !slices.ContainsFunc(problems, func(p problem.Problem) bool {
				return strings.Contains(p.Message, "an event since Codewhale 0.10.0; "+version+" does not know it")
			}) {
				t.Errorf("%s at %s: no problem names the release: %v", ev, version, problems)
			}
		}
	}
	if n := len(Events(release.MustOf("0.10.0"))); n != 15 {
		t.Errorf("0.10.0 has %d events, want 15", n)
	}
	if n := len(Events(release.Release{})); n != 11 {
		t.Errorf("0.9.10 has %d events, want 11", n)
	}
}

// TestStateEventConditions: on the new events tool_name, tool_category and
// exit_code conditions are rejected at load (the hook is dropped, CW300, as
// for every event without a tool identity or an exit code); a mode
// condition is kept.
func TestStateEventConditions(t *testing.T) {
	r := release.MustOf("0.10.0")
	cases := []struct {
		condition string
		kept      bool
	}{
		{`{ type = "tool_name", name = "bash" }`, false},
		{`{ type = "tool_category", category = "shell" }`, false},
		{`{ type = "exit_code", code = 1 }`, false},
		{`{ type = "any", conditions = [{ type = "mode", mode = "plan" }, { type = "tool_name", name = "x" }] }`, false},
		{`{ type = "mode", mode = "plan" }`, true},
		{`{ type = "always" }`, true},
	}
	for _, ev := range stateEvents {
		for _, c := range cases {
			src := "[[hooks]]\nevent = \"" + string(ev) + "\"\ncommand = \"true\"\ncondition = " + c.condition + "\n" +
				"[[hooks]]\nevent = \"session_busy\"\ncommand = \"kept\"\n"
			cfg, problems := FromProjectFile(parse(t, src), r)
			if cfg.Rejected {
				t.Fatalf("%s %s: whole file rejected: %v", ev, c.condition, problems)
			}
			want := 1
			if c.kept {
				want = 2
			}
			dropped := slices.ContainsFunc(problems, func(p problem.Problem) bool { return p.Code == problem.HookDropped })
			if len(cfg.Hooks) != want || dropped == c.kept {
				t.Errorf("%s %s: %d hooks kept, CW300 %v", ev, c.condition, len(cfg.Hooks), dropped)
			}
		}
	}
}

// TestModeConditionsPerRelease is docs/codewhale/releases/0.10.0.md B.0 and
// B.3: from 0.10.0 a session launched in yolo (or auto) mode runs as Agent,
// so a hook sees Agent, a mode = "yolo" condition never matches, and the
// loader says so (CW302).
func TestModeConditionsPerRelease(t *testing.T) {
	cases := []struct {
		mode, sessionMode string
		old, new          bool
	}{
		{"yolo", "Yolo", true, false},
		{"YOLO", "Yolo", true, false},
		{"auto", "Auto", true, false},
		{"agent", "Yolo", false, true},
		{"agent", "Agent", true, true},
		{"plan", "Plan", true, true},
		{"operate", "Yolo", false, false},
	}
	for _, c := range cases {
		cond := Condition{Type: ModeIs, Arg: c.mode}
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			r := release.MustOf(version)
			want := c.old
			if r.Has(release.HookModeThree) {
				want = c.new
			}
			m := MatchContext{ToolName: "bash", Mode: c.sessionMode, Release: r}
			if got := cond.Matches(m); got != want {
				t.Errorf("mode %q in a %s session at %s: %v, want %v", c.mode, c.sessionMode, version, got, want)
			}
			wantChange := want != c.old
			if got := slices.Contains(cond.changedBy(m, cond.Matches(m)), release.HookModeThree); got != wantChange {
				t.Errorf("mode %q in a %s session at %s: changed by B.3-mode %v, want %v", c.mode, c.sessionMode, version, got, wantChange)
			}
		}
	}
	src := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\ncontinue_on_error = false\ncondition = { type = \"mode\", mode = \"yolo\" }\n"
	for _, version := range []string{"0.9.10", "0.10.0"} {
		_, problems := FromProjectFile(parse(t, src), release.MustOf(version))
		lint := slices.ContainsFunc(problems, func(p problem.Problem) bool {
			return p.Code == problem.HookToolNameNeverMatches && strings.Contains(p.Message, "never matches in Codewhale "+version)
		})
		if lint != (version != "0.9.10") {
			t.Errorf("at %s: CW302 for mode yolo %v (%v)", version, lint, problems)
		}
	}
}

// TestShellAliasesPerRelease is docs/codewhale/releases/0.10.1.md Part D
// item 8: from 0.10.1 bash, Bash and exec_shell are one tool for tool_name
// conditions (globs included); the retired-name lint on exec_shell stops.
func TestShellAliasesPerRelease(t *testing.T) {
	cases := []struct {
		pattern, call string
		old, new      bool
	}{
		{"exec_shell", "bash", false, true},
		{"exec_shell", "Bash", false, true},
		{"bash", "exec_shell", false, true},
		{"Bash", "bash", false, true},
		{"exec_*", "bash", false, true},
		{"bash", "bash", true, true},
		{"bash", "BASH", false, false},
		{"exec_shell", "run", false, false},
		{"shell", "bash", false, false},
	}
	for _, c := range cases {
		cond := Condition{Type: AllOf, Conditions: []Condition{{Type: ToolName, Arg: c.pattern}}}
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			r := release.MustOf(version)
			want := c.old
			if r.Has(release.HookShellAliases) {
				want = c.new
			}
			m := MatchContext{ToolName: c.call, Mode: "Agent", Release: r}
			if got := cond.Matches(m); got != want {
				t.Errorf("tool_name %q for a %s call at %s: %v, want %v", c.pattern, c.call, version, got, want)
			}
			if got := slices.Contains(cond.changedBy(m, cond.Matches(m)), release.HookShellAliases); got != (want != c.old) {
				t.Errorf("tool_name %q for a %s call at %s: changed by D.8 %v", c.pattern, c.call, version, got)
			}
		}
	}
	src := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\ncontinue_on_error = false\ncondition = { type = \"tool_name\", name = \"exec_shell\" }\n"
	for _, version := range []string{"0.10.0", "0.10.1"} {
		_, problems := FromProjectFile(parse(t, src), release.MustOf(version))
		retired := slices.ContainsFunc(problems, func(p problem.Problem) bool { return strings.Contains(p.Message, "retired name") })
		if retired != (version == "0.10.0") {
			t.Errorf("at %s: retired-name lint %v", version, retired)
		}
	}
}

// TestBeforeSaysWhichReleaseChangedTheHooks: a hook that runs (or not)
// only because of a release change names it in the outcome, and its
// process sees the mode of that release.
func TestBeforeSaysWhichReleaseChangedTheHooks(t *testing.T) {
	hook := Hook{Event: ToolCallBefore, Command: "gate", TimeoutSecs: 1, Condition: Condition{Type: ToolName, Arg: "exec_shell"}}
	modeHook := Hook{Event: ToolCallBefore, Command: "mode", TimeoutSecs: 1, Condition: Condition{Type: ModeIs, Arg: "yolo"}}
	for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
		r := release.MustOf(version)
		runner := &recordingRunner{}
		cfg := Config{Enabled: true, Hooks: []Hook{hook, modeHook}, Release: r}
		out := Before(context.Background(), runner, nil, cfg, Call{ToolName: "bash", Mode: "Yolo"})
		var want []string
		var changes []release.Change
		if !r.Has(release.HookModeThree) {
			want = append(want, "mode")
		} else {
			changes = append(changes, release.HookModeThree)
		}
		if r.Has(release.HookShellAliases) {
			want = append([]string{"gate"}, want...)
			changes = append([]release.Change{release.HookShellAliases}, changes...)
		}
		if !slices.Equal(runner.commands, want) || !slices.Equal(out.Changes, changes) {
			t.Errorf("at %s: ran %q, changes %v; want %q, %v", version, runner.commands, out.Changes, want, changes)
		}
		wantMode := "DEEPSEEK_MODE=Yolo"
		if r.Has(release.HookModeThree) {
			wantMode = "DEEPSEEK_MODE=Agent"
		}
		for _, env := range runner.envs {
			if !slices.Contains(env, wantMode) {
				t.Errorf("at %s: hook env %q lacks %s", version, env, wantMode)
			}
		}
	}
}

// recordingRunner runs nothing: it records each hook's command and
// environment and answers exit 0.
type recordingRunner struct {
	commands []string
	envs     [][]string
}

func (r *recordingRunner) Run(_ context.Context, h Hook, env []string, _ string, _ time.Duration) Result {
	r.commands = append(r.commands, h.Command)
	r.envs = append(r.envs, env)
	return exited(0, "")
}
