package hooks

import "testing"

// TestCategory is the category table of docs/codewhale/pipeline.md §3.3.
func TestCategory(t *testing.T) {
	cases := []struct {
		name, action, want string
	}{
		{"bash", "", "shell"}, {"Bash", "wait", "shell"}, {"exec_shell", "", "shell"},
		{"Run", "tests", "shell"}, {"run", "", "shell"},
		{"read", "", "safe"}, {"todo_write", "", "safe"},
		{"write", "", "file_write"}, {"edit", "", "file_write"}, {"apply_patch", "", "file_write"},
		{"File", "read", "safe"}, {"file", "list", "safe"}, {"File", "search_name", "safe"}, {"File", "search_content", "safe"},
		{"File", "write", "file_write"}, {"File", "patch", "file_write"}, {"File", "", "file_write"}, {"File", "Read", "file_write"},
		{"Git", "status", "safe"}, {"git", "blame", "safe"}, {"Git", "push", "other"}, {"Git", "", "other"},
		{"read_file", "", "other"}, {"write_file", "", "other"}, {"BASH", "", "other"}, {"mcp_x_y", "", "other"}, {"Web", "fetch", "other"},
	}
	for _, c := range cases {
		input := map[string]any{}
		if c.action != "" {
			input["action"] = c.action
		}
		if got := Category(c.name, input); got != c.want {
			t.Errorf("Category(%s, %q) = %s, want %s", c.name, c.action, got, c.want)
		}
	}
	if got := Category("File", map[string]any{"action": 1}); got != "file_write" {
		t.Errorf("non-string action: %s", got)
	}
}

func TestToolNameMatches(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"bash", "bash", true}, {"bash", "Bash", false}, {"bash", "bash2", false},
		{"mcp_*", "mcp_github_issue", true}, {"mcp_*", "mcp_", true}, {"mcp_*", "xmcp_a", false},
		{"*_file", "read_file", true}, {"*", "", true}, {"a*b*c", "aXbYc", true}, {"a*b*c", "acb", false},
		{"a.c", "abc", false}, {"a.c", "a.c", true}, {"a+*", "a+b", true}, {"(x)*", "(x)y", true},
		{"a*", "a\nb", false}, {"*", "ünï", true},
	}
	for _, c := range cases {
		if got := toolNameMatches(c.pattern, c.name); got != c.want {
			t.Errorf("toolNameMatches(%q, %q) = %v", c.pattern, c.name, got)
		}
	}
}

func TestConditionMatches(t *testing.T) {
	two := int64(2)
	ctx := MatchContext{ToolName: "File", Input: map[string]any{"action": "read"}, Mode: "Plan", ExitCode: &two}
	before := MatchContext{ToolName: "bash", Mode: "Agent"}
	cond := func(typ ConditionType, arg string) Condition { return Condition{Type: typ, Arg: arg} }
	cases := []struct {
		name string
		c    Condition
		m    MatchContext
		want bool
	}{
		{"zero value is always", Condition{}, ctx, true},
		{"always", cond(Always, ""), ctx, true},
		{"tool_name", cond(ToolName, "File"), ctx, true},
		{"tool_category", cond(ToolCategory, "safe"), ctx, true},
		{"tool_category is case-sensitive", cond(ToolCategory, "Safe"), ctx, false},
		{"mode ignores case", cond(ModeIs, "plan"), ctx, true},
		{"mode differs", cond(ModeIs, "agent"), ctx, false},
		{"mode act is not Agent", cond(ModeIs, "act"), before, false},
		{"exit_code", Condition{Type: ExitCodeIs, Code: 2}, ctx, true},
		{"exit_code without one", Condition{Type: ExitCodeIs, Code: 0}, before, false},
		{"all", Condition{Type: AllOf, Conditions: []Condition{cond(ToolName, "File"), cond(ModeIs, "PLAN")}}, ctx, true},
		{"all with a miss", Condition{Type: AllOf, Conditions: []Condition{cond(ToolName, "File"), cond(ModeIs, "Agent")}}, ctx, false},
		{"empty all", Condition{Type: AllOf}, ctx, true},
		{"any", Condition{Type: AnyOf, Conditions: []Condition{cond(ToolName, "x"), cond(ToolCategory, "safe")}}, ctx, true},
		{"any with no hit", Condition{Type: AnyOf, Conditions: []Condition{cond(ToolName, "x")}}, ctx, false},
		{"empty any", Condition{Type: AnyOf}, ctx, false},
	}
	for _, c := range cases {
		if got := c.c.Matches(c.m); got != c.want {
			t.Errorf("%s: got %v", c.name, got)
		}
	}
}
