package execpolicy

import "testing"

// Results say which rule produced them, even when Reject hides the label.
func TestResultSources(t *testing.T) {
	s := func(v string) *string { return &v }
	e := NewEngine([]Ruleset{
		{Layer: User, TrustedPrefixes: []string{"cargo"}, Typed: []Rule{{Tool: "exec_shell", Command: s("cargo test"), Action: Ask}}},
		{Layer: Agent, DeniedPrefixes: []string{"rm"}},
	}, WithLegacyPrefixes(nil, []string{"shutdown"}))

	r := e.Check(Input{Command: "cargo test", Tool: DefaultTool, Cwd: "/w", Mode: Mode{Kind: Reject, RejectRules: true}})
	if r.Phase != Forbidden || r.MatchedRule == nil || *r.MatchedRule != "cargo" || r.MatchedAction == nil || *r.MatchedAction != Ask {
		t.Fatalf("reject: %+v", r)
	}
	if (*r.RuleSource != Source{Kind: TrustedPrefix, Layer: User, Ruleset: 0, Index: 0}) ||
		(*r.ActionSource != Source{Kind: TypedRule, Layer: User, Ruleset: 0, Index: 0}) {
		t.Errorf("sources %+v %+v", r.RuleSource, r.ActionSource)
	}

	r = e.Check(Input{Command: "rm x", Tool: DefaultTool, Cwd: "/w", Mode: Mode{Kind: Never}})
	if r.RuleSource == nil || (*r.RuleSource != Source{Kind: DeniedPrefix, Layer: Agent, Ruleset: 1, Index: 0}) || r.ActionSource != nil {
		t.Errorf("agent deny source %+v", r.RuleSource)
	}
	r = e.Check(Input{Command: "sudo shutdown now", Tool: DefaultTool, Cwd: "/w", Mode: Mode{Kind: Never}})
	if r.RuleSource == nil || r.RuleSource.Ruleset != LegacyRuleset {
		t.Errorf("legacy deny source %+v", r.RuleSource)
	}
}

// set_ruleset replaces every ruleset of one layer and keeps the rest.
func TestWithRuleset(t *testing.T) {
	e := NewEngine([]Ruleset{{Layer: User, DeniedPrefixes: []string{"a"}}, {Layer: Agent, DeniedPrefixes: []string{"b"}}, {Layer: User, DeniedPrefixes: []string{"c"}}})
	next := e.WithRuleset(Ruleset{Layer: User, DeniedPrefixes: []string{"d"}})
	check := func(e *Engine, command string) Phase {
		return e.Check(Input{Command: command, Tool: DefaultTool, Cwd: "/w", Mode: Mode{Kind: Never}}).Phase
	}
	for command, want := range map[string]Phase{"a": Allowed, "b": Forbidden, "c": Allowed, "d": Forbidden} {
		if got := check(next, command); got != want {
			t.Errorf("%s: %v, want %v", command, got, want)
		}
	}
	if check(e, "a") != Forbidden {
		t.Error("WithRuleset changed the original engine")
	}
	if got := next.Rulesets(); len(got) != 2 || got[0].Layer != Agent || got[1].DeniedPrefixes[0] != "d" {
		t.Errorf("rulesets %+v", got)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("git status -s", "git status", "read_file", "/workspace", "a.txt", uint8(3))
	f.Add("sudo bash -c 'rm -rf /'", "rm -rf /", "exec_shell", `C:\ws`, "..", uint8(7))
	f.Fuzz(func(t *testing.T, command, pattern, tool, cwd, path string, bits uint8) {
		rule := Rule{Tool: tool, Command: &pattern, CommandExact: bits&1 != 0, Action: Action(bits % 3)}
		if bits&2 != 0 {
			rule.Path = &path
		}
		if bits&4 != 0 {
			rule.Workspace = &cwd
		}
		e := NewEngine([]Ruleset{CompileRules([]Rule{rule})}, WithLegacyPrefixes([]string{pattern}, []string{pattern}))
		for _, mode := range []Mode{{Kind: UnlessTrusted}, {Kind: OnFailure}, {Kind: OnRequest}, {Kind: Reject, RejectRules: true}, {Kind: Never}} {
			r := e.Check(Input{Command: command, Cwd: cwd, Tool: tool, Path: &path, Mode: mode})
			want := map[Phase][2]bool{Allowed: {true, false}, NeedsApproval: {true, true}, Forbidden: {false, false}}[r.Phase]
			if r.Allow != want[0] || r.RequiresApproval != want[1] || r.Reason == "" {
				t.Fatalf("inconsistent result %+v", r)
			}
		}
	})
}
