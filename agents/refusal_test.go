package agents

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// refusalText is the reason an agent is shown, from its answer's form.
func refusalText(t *testing.T, a *Agent, out Output) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out.Stdout), &v); err != nil {
		t.Fatalf("%s: stdout %q: %v", a.Name, out.Stdout, err)
	}
	if h, ok := v["hookSpecificOutput"].(map[string]any); ok {
		v = h
	}
	for _, k := range []string{"permissionDecisionReason", "reason", "agent_message"} {
		if s, ok := v[k].(string); ok {
			return s
		}
	}
	t.Fatalf("%s: no reason in %s", a.Name, out.Stdout)
	return ""
}

// TestRefusalSaysWhoAndWhere: every agent's refusal names codewhale-ls and
// where to look: the rule's file and line, the broken file's line, key and
// the command that explains it, else the layer in words (issue 24, point 8).
func TestRefusalSaysWhoAndWhere(t *testing.T) {
	const perms = "/home/u/.codewhale/permissions.toml"
	cases := []struct {
		name  string
		reply Reply
		want  []string
	}{
		{"rule", Reply{Verdict: gate.Deny, Reason: "Command blocked by denied prefix rule 'git push'", Layer: gate.LayerPermissions, Location: &gate.Location{File: perms, Line: 3}},
			[]string{"codewhale-ls: Command blocked by denied prefix rule 'git push' (rule at " + perms + ":3)"}},
		{"broken file", Reply{Verdict: gate.Deny, Reason: `Codewhale refuses to start: Failed to parse permissions file "` + perms + `"; file contents were omitted`, Layer: gate.LayerPosture,
			Location: &gate.Location{File: perms, Line: 37, Problem: "unknown rule key `acton` (did you mean `action`?)"}},
			[]string{"codewhale-ls: Codewhale refuses to start", perms + ":37: unknown rule key `acton` (did you mean `action`?)", "`codewhale-ls check " + perms + "`"}},
		{"layer", Reply{Verdict: gate.Deny, Reason: "Tool 'exec_shell' is not available in Plan mode", Layer: gate.LayerAdmission},
			[]string{"codewhale-ls: Tool 'exec_shell' is not available in Plan mode (Codewhale's mode and tool admission, layer 2)"}},
		{"hook failure", Reply{Verdict: gate.Deny, Reason: "the hook event is empty: stdin held no JSON"},
			[]string{"codewhale-ls: the hook event is empty: stdin held no JSON"}},
		{"already named", Reply{Verdict: gate.Deny, Reason: "codewhale-ls hook codex: --timeout \"x\": want seconds"},
			[]string{"codewhale-ls hook codex: --timeout"}},
	}
	for _, name := range Names() {
		a, _ := Lookup(name)
		for _, c := range cases {
			got := refusalText(t, a, a.Answer(c.reply))
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s, %s: %q does not hold %q", name, c.name, got, w)
				}
			}
			if strings.Count(got, "codewhale-ls:") > 1 || strings.Count(got, "rule at") > 1 {
				t.Errorf("%s, %s: named twice: %q", name, c.name, got)
			}
		}
		// An ask the agent cannot put is a deny that still says where.
		ask := Reply{Verdict: gate.Ask, Reason: "Command requires approval by ask rule 'make release'", Layer: gate.LayerApproval, Location: &gate.Location{File: perms, Line: 13}}
		if got := refusalText(t, a, a.Answer(ask)); !strings.HasPrefix(got, "codewhale-ls: ") || !strings.Contains(got, "(rule at "+perms+":13)") {
			t.Errorf("%s: ask answered %q", name, got)
		}
	}
}

// TestFinalNamesOnce: the flow takes Final of Final (the log, then the
// answer); the second adds nothing.
func TestFinalNamesOnce(t *testing.T) {
	a, _ := Lookup("claude-code")
	r := Reply{Verdict: gate.Deny, Reason: "blocked", Layer: gate.LayerPermissions, Location: &gate.Location{File: "/p", Line: 1}}
	once := a.Final(r, Call{})
	if twice := a.Final(once, Call{}); twice != once {
		t.Errorf("Final changed its own answer: %+v, then %+v", once, twice)
	}
	if allow := a.Final(Reply{Verdict: gate.Allow, Reason: "Execution allowed by policy."}, Call{}); allow.Reason != "Execution allowed by policy." {
		t.Errorf("an allow is not a refusal: %q", allow.Reason)
	}
}

// TestExampleEventsParse: the event a person is shown to try the hook by
// hand (Agent.Example) is one the agent's parser reads as a shell call.
func TestExampleEventsParse(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		call, err := a.Parse([]byte(a.Example))
		if err != nil || call.Tool != "exec_shell" || call.Input["command"] != "git status" {
			t.Errorf("%s: example %s parses as %+v, %v", name, a.Example, call, err)
		}
		if strings.Contains(a.Example, "'") {
			t.Errorf("%s: the example is shown in single quotes, so it cannot hold one: %s", name, a.Example)
		}
	}
}
