package hooks

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

// scripted answers each hook by name; a hook it has no answer for makes it
// panic, which is how a lost executor looks to Before.
type scripted struct {
	results  map[string]Result
	ran      []string
	timeouts []time.Duration
	dirs     []string
}

func (s *scripted) Run(_ context.Context, h Hook, _ []string, dir string, timeout time.Duration) Result {
	r, ok := s.results[h.Name]
	if !ok {
		panic("executor lost")
	}
	s.ran = append(s.ran, h.Name)
	s.timeouts = append(s.timeouts, timeout)
	s.dirs = append(s.dirs, dir)
	return r
}

func exited(code int, stdout string) Result { return Result{ExitCode: &code, Stdout: stdout} }

var timedOut = Result{Err: "Hook timed out after 30s", TimedOut: true}

func beforeHook(name string, strict bool) Hook {
	return Hook{Event: ToolCallBefore, Command: "true", Name: name, TimeoutSecs: 30, ContinueOnError: !strict}
}

func lenient(names ...string) []Hook {
	var hs []Hook
	for _, n := range names {
		hs = append(hs, beforeHook(n, false))
	}
	return hs
}

var bashCall = Call{ToolName: "bash", CallID: "call_1", Input: map[string]any{"action": "run", "command": "ls"}, Mode: "Agent", Workspace: "/ws"}

func runBefore(t *testing.T, hooks []Hook, results map[string]Result) (Outcome, *scripted) {
	t.Helper()
	s := &scripted{results: results}
	return Before(context.Background(), s, nil, Config{Enabled: true, Hooks: hooks}, bashCall), s
}

const noVerdictPrefix = "ToolCallBefore hook returned no verdict for tool 'bash' and `continue_on_error = false` is configured: "

// TestFoldVectors is the vector table of docs/codewhale/pipeline.md §3.6.
func TestFoldVectors(t *testing.T) {
	background := beforeHook("bg", false)
	background.Background = true
	cases := []struct {
		name        string
		hooks       []Hook
		results     map[string]Result
		want        Outcome // Records are not compared
		unavailable int
	}{
		{"deny with reason", lenient("a"),
			map[string]Result{"a": exited(0, `{"decision":"deny","reason":"nope"}`)},
			Outcome{Denied: true, Reason: "ToolCallBefore hook denied tool 'bash': nope"}, 0},
		{"exit 2 wins over stdout", lenient("a"),
			map[string]Result{"a": exited(2, `{"decision":"allow"}`)},
			Outcome{Denied: true, Reason: "ToolCallBefore hook denied tool 'bash': ToolCallBefore hook denied tool execution"}, 0},
		{"hook_fold_deny_wins_over_ask_and_allow", lenient("a", "b", "c"),
			map[string]Result{"a": exited(0, `{"decision":"allow"}`), "b": exited(0, `{"decision":"ask"}`), "c": exited(0, `{"decision":"deny","reason":"policy"}`)},
			Outcome{Denied: true, Reason: "ToolCallBefore hook denied tool 'bash': policy"}, 0},
		{"ask", lenient("a", "b"),
			map[string]Result{"a": exited(0, `{"decision":"allow"}`), "b": exited(0, `{"decision":"ask"}`)},
			Outcome{Ask: true}, 0},
		{"last updatedInput wins", lenient("a", "b"),
			map[string]Result{"a": exited(0, `{"updatedInput":{"command":"first"}}`), "b": exited(0, `{"updatedInput":{"command":"second"}}`)},
			Outcome{UpdatedInput: map[string]any{"command": "second"}}, 0},
		{"one background result", []Hook{background}, map[string]Result{}, Outcome{}, 0},
		{"strict timeout", []Hook{beforeHook("gate", true)},
			map[string]Result{"gate": timedOut},
			Outcome{Denied: true, Reason: noVerdictPrefix + "gate: timed out", Unavailable: []string{"gate: timed out"}, Blocking: []string{"gate: timed out"}}, 1},
		{"strict exit 1 without decision", []Hook{beforeHook("strict-gate", true)},
			map[string]Result{"strict-gate": exited(1, "diagnostic only")},
			Outcome{Denied: true, Reason: noVerdictPrefix + "strict-gate: exited with status 1 and no decision",
				Unavailable: []string{"strict-gate: exited with status 1 and no decision"}, Blocking: []string{"strict-gate: exited with status 1 and no decision"}}, 1},
		{"strict exit 1 with allow", []Hook{beforeHook("s", true)},
			map[string]Result{"s": exited(1, `{"decision":"allow"}`)}, Outcome{}, 0},
		{"lenient timeout", lenient("l"),
			map[string]Result{"l": timedOut}, Outcome{Unavailable: []string{"l: timed out"}}, 1},
		{"lenient and strict timeout", []Hook{beforeHook("lenient", false), beforeHook("strict", true)},
			map[string]Result{"lenient": timedOut, "strict": timedOut},
			Outcome{Denied: true, Reason: noVerdictPrefix + "strict: timed out", Unavailable: []string{"lenient: timed out", "strict: timed out"}, Blocking: []string{"strict: timed out"}}, 2},
		{"lost executor", []Hook{beforeHook("shell-gate", true), beforeHook("audit", true)}, map[string]Result{},
			Outcome{Denied: true, Reason: noVerdictPrefix + "shell-gate: the hook executor was lost before a verdict, audit: the hook executor was lost before a verdict",
				Unavailable: []string{"shell-gate: the hook executor was lost before a verdict", "audit: the hook executor was lost before a verdict"},
				Blocking:    []string{"shell-gate: the hook executor was lost before a verdict", "audit: the hook executor was lost before a verdict"}}, 2},
		{"exit 2 never echoes stdout", lenient("a"),
			map[string]Result{"a": exited(2, "/path --token=abc")},
			Outcome{Denied: true, Reason: "ToolCallBefore hook denied tool 'bash': ToolCallBefore hook denied tool execution"}, 0},
	}
	for _, stdout := range []string{"", "not json", "[1,2]", `{"reason":"x"}`, `{"decision":"ALLOW"}`} {
		cases = append(cases, struct {
			name        string
			hooks       []Hook
			results     map[string]Result
			want        Outcome
			unavailable int
		}{"passthrough " + stdout, lenient("a"), map[string]Result{"a": exited(0, stdout)}, Outcome{}, 0})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := runBefore(t, c.hooks, c.results)
			if len(got.Unavailable) != c.unavailable {
				t.Errorf("unavailable = %q, want %d entries", got.Unavailable, c.unavailable)
			}
			got.Records = nil
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if strings.Contains(got.Reason, "diagnostic") || strings.Contains(got.Reason, "token") {
				t.Errorf("reason echoes hook output: %q", got.Reason)
			}
		})
	}
}

func TestBeforeSequencing(t *testing.T) {
	t.Run("a failed strict hook stops later hooks", func(t *testing.T) {
		hooks := []Hook{beforeHook("a", false), beforeHook("gate", true), beforeHook("later", false)}
		_, s := runBefore(t, hooks, map[string]Result{"a": exited(0, ""), "gate": exited(3, ""), "later": exited(0, "")})
		if !reflect.DeepEqual(s.ran, []string{"a", "gate"}) {
			t.Errorf("ran %v", s.ran)
		}
	})
	t.Run("a strict exit 2 also stops", func(t *testing.T) {
		_, s := runBefore(t, []Hook{beforeHook("gate", true), beforeHook("later", false)},
			map[string]Result{"gate": exited(2, ""), "later": exited(0, "")})
		if len(s.ran) != 1 {
			t.Errorf("ran %v", s.ran)
		}
	})
	t.Run("a failed lenient hook does not stop", func(t *testing.T) {
		got, s := runBefore(t, lenient("a", "b"), map[string]Result{"a": exited(1, ""), "b": exited(0, `{"decision":"ask"}`)})
		if len(s.ran) != 2 || !got.Ask || got.Denied || got.Unavailable != nil {
			t.Errorf("ran %v, outcome %+v", s.ran, got)
		}
	})
	t.Run("the JSON of a non-zero exit is honoured", func(t *testing.T) {
		got, _ := runBefore(t, lenient("a"), map[string]Result{"a": exited(1, `{"decision":"deny"}`)})
		if !got.Denied || got.Reason != "ToolCallBefore hook denied tool 'bash': ToolCallBefore hook denied tool execution" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("deny drops later rewrites and context", func(t *testing.T) {
		got, _ := runBefore(t, lenient("a", "b"), map[string]Result{
			"a": exited(0, `{"decision":"deny","additionalContext":"c1"}`),
			"b": exited(0, `{"updatedInput":{"x":1},"additionalContext":"c2"}`)})
		if !got.Denied || got.UpdatedInput != nil || got.Context != "" || got.Ask {
			t.Errorf("%+v", got)
		}
	})
	t.Run("blocking wins over a JSON deny", func(t *testing.T) {
		got, _ := runBefore(t, []Hook{beforeHook("deny", false), beforeHook("gate", true)},
			map[string]Result{"deny": exited(0, `{"decision":"deny","reason":"r"}`), "gate": timedOut})
		if !strings.HasPrefix(got.Reason, noVerdictPrefix) {
			t.Errorf("%q", got.Reason)
		}
	})
	t.Run("non-matching and other-event hooks never run", func(t *testing.T) {
		other := beforeHook("after", false)
		other.Event = ToolCallAfter
		web := beforeHook("web", true)
		web.Condition = Condition{Type: ToolName, Arg: "Web"}
		got, s := runBefore(t, []Hook{other, web, beforeHook("a", false)}, map[string]Result{"a": exited(0, "")})
		if !reflect.DeepEqual(s.ran, []string{"a"}) || got.Denied {
			t.Errorf("ran %v, %+v", s.ran, got)
		}
	})
	t.Run("a lost executor ignores strict gates that did not match", func(t *testing.T) {
		web := beforeHook("web", true)
		web.Condition = Condition{Type: ToolName, Arg: "Web"}
		got, _ := runBefore(t, []Hook{web, beforeHook("boom", false)}, map[string]Result{})
		if got.Denied {
			t.Errorf("%+v", got)
		}
	})
	t.Run("disabled hooks never run", func(t *testing.T) {
		s := &scripted{results: map[string]Result{}}
		got := Before(context.Background(), s, nil, Config{Hooks: []Hook{beforeHook("gate", true)}}, bashCall)
		if got.Denied || len(s.ran) != 0 {
			t.Errorf("%+v", got)
		}
	})
	t.Run("a cancelled context is a lost executor", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := &scripted{results: map[string]Result{"a": {Err: "hook cancelled"}}}
		got := Before(ctx, s, nil, Config{Enabled: true, Hooks: []Hook{beforeHook("a", false), beforeHook("g", true)}}, bashCall)
		if !got.Denied || !reflect.DeepEqual(got.Blocking, []string{"g: the hook executor was lost before a verdict"}) {
			t.Errorf("%+v", got)
		}
	})
}

func TestBeforeReplyFields(t *testing.T) {
	big := `{"updatedInput":{"command":"` + strings.Repeat("x", maxUpdatedInputBytes) + `"}}`
	cases := []struct {
		name, stdout string
		want         Outcome
	}{
		{"oversized updatedInput ignored", big, Outcome{}},
		{"non-object updatedInput ignored", `{"updatedInput":"rm -rf /"}`, Outcome{}},
		{"context trimmed and stripped", "  {\"additionalContext\":\" a\\u0007b\\nc \"}  ", Outcome{Context: "abc"}},
		{"empty reason falls back", `{"decision":"deny","reason":"\u0001 "}`, Outcome{Denied: true, Reason: "ToolCallBefore hook denied tool 'bash': " + defaultDenyReason}},
		{"non-string decision is absent", `{"decision":1,"additionalContext":"kept"}`, Outcome{Context: "kept"}},
		{"trailing garbage is not JSON", `{"decision":"deny"} x`, Outcome{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := runBefore(t, lenient("a"), map[string]Result{"a": exited(0, c.stdout)})
			got.Records = nil
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v want %+v", got, c.want)
			}
		})
	}
	t.Run("updatedInput at the size limit is kept", func(t *testing.T) {
		pad := maxUpdatedInputBytes - len(`{"c":""}`)
		got, _ := runBefore(t, lenient("a"), map[string]Result{"a": exited(0, `{"updatedInput":{"c":"`+strings.Repeat("y", pad)+`"}}`)})
		if got.UpdatedInput == nil {
			t.Error("rejected an updatedInput of exactly 32 768 bytes")
		}
	})
	t.Run("contexts join with newlines and cap at 8000", func(t *testing.T) {
		long := strings.Repeat("é", 1500)
		results := map[string]Result{}
		var names []string
		for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
			results[n] = exited(0, `{"additionalContext":"`+long+`"}`)
			names = append(names, n)
		}
		got, _ := runBefore(t, lenient(names...), results)
		if n := len([]rune(got.Context)); n != maxContextChars {
			t.Errorf("context has %d chars", n)
		}
		if !strings.HasPrefix(got.Context, long+"\n"+long) {
			t.Error("contexts not joined with a newline")
		}
	})
	t.Run("reason capped at 2000 chars", func(t *testing.T) {
		got, _ := runBefore(t, lenient("a"), map[string]Result{"a": exited(2, `{"reason":"`+strings.Repeat("r", 2500)+`"}`)})
		want := "ToolCallBefore hook denied tool 'bash': " + strings.Repeat("r", 2000) + textTruncated
		if got.Reason != want {
			t.Errorf("reason has %d bytes", len(got.Reason))
		}
	})
}

func TestBeforeRecordsAndConfig(t *testing.T) {
	unnamed := beforeHook("", false)
	unnamed.Index = 2
	unnamed.Source = Project
	bg := beforeHook("bg", false)
	bg.Background = true
	s := &scripted{results: map[string]Result{"": timedOut, "a": exited(0, `{"decision":"ask","updatedInput":{}}`)}}
	cfg := Config{Enabled: true, DefaultTimeoutSecs: 7, WorkingDir: "/hooks", Hooks: []Hook{unnamed, bg, beforeHook("a", false)}}
	got := Before(context.Background(), s, nil, cfg, bashCall)
	want := []Record{
		{Label: "project hook #3", Source: Project, Index: 2, Effect: EffectNoVerdict},
		{Label: "bg", Effect: EffectDropped},
		{Label: "a", ExitCode: got.Records[2].ExitCode, Effect: EffectAsk, Rewrote: true},
	}
	if !reflect.DeepEqual(got.Records, want) {
		t.Errorf("records %+v", got.Records)
	}
	if !reflect.DeepEqual(got.Unavailable, []string{"project hook #3: timed out"}) {
		t.Errorf("unavailable %q", got.Unavailable)
	}
	if s.timeouts[0] != 7*time.Second || s.dirs[0] != "/hooks" {
		t.Errorf("timeout %v dir %q", s.timeouts[0], s.dirs[0])
	}
	s = &scripted{results: map[string]Result{"a": exited(0, "")}}
	Before(context.Background(), s, nil, Config{Enabled: true, Hooks: lenient("a")}, bashCall)
	if s.timeouts[0] != 30*time.Second || s.dirs[0] != "/ws" {
		t.Errorf("timeout %v dir %q", s.timeouts[0], s.dirs[0])
	}
}

func TestCombineRunsProjectLast(t *testing.T) {
	global := Config{Enabled: true, DefaultTimeoutSecs: 5, Hooks: lenient("g")}
	project := Config{Enabled: true, WorkingDir: "/ignored", Hooks: lenient("p")}
	cfg := Combine(global, project)
	if cfg.WorkingDir != "" || cfg.DefaultTimeoutSecs != 5 || len(global.Hooks) != 1 {
		t.Fatalf("%+v", cfg)
	}
	s := &scripted{results: map[string]Result{"g": exited(0, `{"updatedInput":{"by":"g"}}`), "p": exited(0, `{"updatedInput":{"by":"p"}}`)}}
	got := Before(context.Background(), s, nil, cfg, bashCall)
	if !reflect.DeepEqual(got.UpdatedInput, map[string]any{"by": "p"}) {
		t.Errorf("%+v", got.UpdatedInput)
	}
}
