package execpolicy

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// The serde error classes Codewhale's serde + toml 0.5 loader produces,
// beyond the ones the parse vectors pin (§7). Each row also pins the
// problem code and the exact text its span covers.
func TestParseFileSerdeClasses(t *testing.T) {
	const rule = "[[rules]]\ntool = \"exec_shell\"\n"
	cases := []struct {
		src             string
		code            problem.Code
		spanText, class string
	}{
		{rule + "acton = \"allow\"\n", problem.UnknownKey, "acton", "unknown field `acton`, expected one of `tool`, `command`, `command_exact`, `path`, `workspace`, `action`"},
		{"version = 1\n", problem.UnknownKey, "version", "unknown field `version`, expected `rules`"},
		{"[rules]\ntool = \"x\"\n", problem.InvalidValue, "rules", "invalid type: map, expected a sequence"},
		{"rules = {}\n", problem.InvalidValue, "{}", "invalid type: map, expected a sequence"},
		{"rules = 5\n", problem.InvalidValue, "5", "invalid type: integer `5`, expected a sequence"},
		{"rules = \"not-an-array\"\n", problem.InvalidValue, `"not-an-array"`, `invalid type: string "not-an-array", expected a sequence`},
		{"rules = [1]\n", problem.InvalidValue, "1", "invalid type: integer `1`, expected struct ToolAskRule"},
		{"rules = [1979-05-27]\n", problem.InvalidValue, "1979-05-27", "unknown field `$__toml_private_datetime`, expected one of `tool`, `command`, `command_exact`, `path`, `workspace`, `action`"},
		// A rule written as an array: serde reads its elements as the
		// fields in order.
		{"rules = [[1]]\n", problem.InvalidValue, "1", "invalid type: integer `1`, expected a string"},
		{"rules = [[]]\n", problem.MissingKey, "[]", "invalid length 0, expected struct ToolAskRule with 6 elements"},
		{"rules = [[\"exec_shell\", 1]]\n", problem.InvalidValue, "1", "invalid type: integer `1`, expected a string"},
		{"rules = [[\"exec_shell\", \"ls\", \"x\"]]\n", problem.InvalidValue, `"x"`, `invalid type: string "x", expected a boolean`},
		{"rules = [[\"exec_shell\", \"ls\", false, 5]]\n", problem.InvalidValue, "5", "invalid type: integer `5`, expected a string"},
		{"rules = [[\"exec_shell\", \"ls\", false, \"\", []]]\n", problem.InvalidValue, "[]", "invalid type: sequence, expected a string"},
		{"rules = [[\"exec_shell\", \"ls\", false, \"\", \"\", \"Deny\"]]\n", problem.InvalidValue, `"Deny"`, "unknown variant `Deny`, expected one of `allow`, `ask`, `deny`"},
		{"rules = [[\"exec_shell\", \"ls\", false, \"\", \"\", 5]]\n", problem.InvalidValue, "5", "expected string or inline table, found integer"},
		{"rules = [[\"exec_shell\", \"ls\", false, \"\", \"\", \"deny\", \"x\"]]\n", problem.InvalidValue, `"x"`, "invalid length 7, expected 6 elements in sequence"},
		{"rules = [[\"exec_shell\", \"ls\", false, \"\", \"\", \"deny\", \"x\", 2]]\n", problem.InvalidValue, `"x", 2`, "invalid length 8, expected 6 elements in sequence"},
		{"rules = [[[\"exec_shell\"]]]\n", problem.InvalidValue, `["exec_shell"]`, "invalid type: sequence, expected a string"},
		{"rules = [[{ tool = \"x\" }]]\n", problem.InvalidValue, `{ tool = "x" }`, "invalid type: map, expected a string"},
		{"rules = [{ tool = \"a\" }, [\"b\", true]]\n", problem.InvalidValue, "true", "invalid type: boolean `true`, expected a string"},
		{"[[rules]]\ntool = true\n", problem.InvalidValue, "true", "invalid type: boolean `true`, expected a string"},
		{"[[rules]]\ntool = 5\n", problem.InvalidValue, "5", "invalid type: integer `5`, expected a string"},
		{"[[rules]]\ntool = -0x10\n", problem.SyntaxError, "", ""},
		{"[[rules]]\ntool = 0x10\n", problem.InvalidValue, "0x10", "invalid type: integer `16`, expected a string"},
		{"[[rules]]\ntool = 1.5\n", problem.InvalidValue, "1.5", "invalid type: floating point `1.5`, expected a string"},
		{"[[rules]]\ntool = 2e0\n", problem.InvalidValue, "2e0", "invalid type: floating point `2.0`, expected a string"},
		{"[[rules]]\ntool = 1e-7\n", problem.InvalidValue, "1e-7", "invalid type: floating point `0.0000001`, expected a string"},
		{"[[rules]]\ntool = -0.0\n", problem.InvalidValue, "-0.0", "invalid type: floating point `-0.0`, expected a string"},
		{"[[rules]]\ntool = nan\n", problem.InvalidValue, "nan", "invalid type: floating point `NaN`, expected a string"},
		{"[[rules]]\ntool = -inf\n", problem.InvalidValue, "-inf", "invalid type: floating point `-inf`, expected a string"},
		{"[[rules]]\ntool = 1979-05-27\n", problem.InvalidValue, "1979-05-27", "invalid type: map, expected a string"},
		{"[[rules]]\ntool = [\"a\"]\n", problem.InvalidValue, `["a"]`, "invalid type: sequence, expected a string"},
		{"[[rules]]\ntool = { a = 1 }\n", problem.InvalidValue, "{ a = 1 }", "invalid type: map, expected a string"},
		{rule + "path = [\"a\",\"b\"]\n", problem.InvalidValue, `["a","b"]`, "invalid type: sequence, expected a string"},
		{rule + "command_exact = \"true\"\n", problem.InvalidValue, `"true"`, `invalid type: string "true", expected a boolean`},
		{rule + "command_exact = 1\n", problem.InvalidValue, "1", "invalid type: integer `1`, expected a boolean"},
		{rule + "command_exact = 1.5\n", problem.InvalidValue, "1.5", "invalid type: floating point `1.5`, expected a boolean"},
		{rule + "command_exact = \"a\\\"b\\n\\u0001é\\u0301\"\n", problem.InvalidValue, `"a\"b\n\u0001é\u0301"`, `invalid type: string "a\"b\n\u{1}é\u{301}", expected a boolean`},
		{rule + "action = \"Deny\"\n", problem.InvalidValue, `"Deny"`, "unknown variant `Deny`, expected one of `allow`, `ask`, `deny`"},
		{rule + "action = \"\"\n", problem.InvalidValue, `""`, "unknown variant ``, expected one of `allow`, `ask`, `deny`"},
		{rule + "action = 5\n", problem.InvalidValue, "5", "expected string or inline table, found integer"},
		{rule + "action = 1.5\n", problem.InvalidValue, "1.5", "expected string or inline table, found float"},
		{rule + "action = true\n", problem.InvalidValue, "true", "expected string or inline table, found boolean"},
		{rule + "action = [\"allow\"]\n", problem.InvalidValue, `["allow"]`, "expected string or inline table, found array"},
		{rule + "action = {}\n", problem.InvalidValue, "{}", "expected exactly 1 element, found zero elements"},
		{rule + "action = { allow = {}, deny = {} }\n", problem.InvalidValue, "{ allow = {}, deny = {} }", "expected exactly 1 element, found more than 1 element"},
		{rule + "action = { block = {} }\n", problem.InvalidValue, "{ block = {} }", "unknown variant `block`, expected one of `allow`, `ask`, `deny`"},
		{rule + "action = { allow = 1 }\n", problem.InvalidValue, "{ allow = 1 }", "expected table, found integer"},
		{rule + "action = { allow = { x = 1 } }\n", problem.InvalidValue, "{ allow = { x = 1 } }", "expected empty table"},
		{rule + "[rules.action]\nallow = {}\n", problem.InvalidValue, "rules.action", "invalid type: map, expected enum PermissionAction"},
		{"[[rules]]\ncommand = \"ls\"\n", problem.MissingKey, "rules", "missing field `tool`"},
		{"rules = [{ command = \"ls\" }]\n", problem.MissingKey, `{ command = "ls" }`, "missing field `tool`"},
		{rule + "tool = \"read_file\"\n", problem.SyntaxError, "tool", "duplicate field `tool`"},
		{rule + "x = 1\nx = 2\n", problem.SyntaxError, "x", "unknown field `x`, expected one of `tool`, `command`, `command_exact`, `path`, `workspace`, `action`"},
		{"rules = []\nrules = []\n", problem.SyntaxError, "rules", "duplicate field `rules`"},
		{"v = 1\nv = 2\n", problem.SyntaxError, "v", "unknown field `v`, expected `rules`"},
	}
	for _, c := range cases {
		f, problems := ParseFile([]byte(c.src))
		if f.Accepted || f.Rules != nil || len(problems) != 1 || len(f.Problems) != 1 {
			t.Errorf("%q: accepted=%v rules=%v problems=%v", c.src, f.Accepted, f.Rules, problems)
			continue
		}
		p := f.Problems[0]
		got := c.src[p.Span.Start:p.Span.End]
		if p.Code != c.code || (c.spanText != "" && got != c.spanText) || (c.class != "" && f.SerdeError != c.class) {
			t.Errorf("%q:\n got %s %q %q\nwant %s %q %q", c.src, p.Code, got, f.SerdeError, c.code, c.spanText, c.class)
		}
		if !strings.HasPrefix(p.Message, "Codewhale refuses to start: ") || problems[0].Message != p.Message {
			t.Errorf("%q: message %q", c.src, p.Message)
		}
	}
}

func TestParseFileAccepts(t *testing.T) {
	cases := []struct {
		src  string
		want []Rule
	}{
		{"", nil},
		{"  \n\t\n", nil},
		{"# only a comment\n", nil},
		{"rules = []\n", nil},
		{"[[rules]]\ntool = \"x\"\naction = { allow = {} }\n", []Rule{{Tool: "x", Action: Allow}}},
		{"rules = [{ tool = \"t\", command = \"\", command_exact = false, path = \"p\", workspace = \"/w\", action = \"deny\" }]\n",
			[]Rule{{Tool: "t", Command: ptr(""), Path: ptr("p"), Workspace: ptr("/w"), Action: Deny}}},
		// Rules written as arrays of their fields, in order; the fields
		// left out take their defaults.
		{"rules = [[\"exec_shell\", \"git push\", false, \"\", \"\", \"deny\"]]\n",
			[]Rule{{Tool: "exec_shell", Command: ptr("git push"), Path: ptr(""), Workspace: ptr(""), Action: Deny}}},
		{"rules = [[\"exec_shell\"], [\"\"]]\n", []Rule{{Tool: "exec_shell", Action: Ask}, {Tool: "", Action: Ask}}},
		{"rules = [[\"exec_shell\", \"make\", true]]\n", []Rule{{Tool: "exec_shell", Command: ptr("make"), CommandExact: true, Action: Ask}}},
		{"rules = [[\"x\", \"ls\", false, \"p\", \"/w\", { allow = {} }]]\n",
			[]Rule{{Tool: "x", Command: ptr("ls"), Path: ptr("p"), Workspace: ptr("/w"), Action: Allow}}},
		{"rules = [{ tool = \"a\" }, [\"b\", \"ls\"], { tool = \"c\", action = \"allow\" }]\n",
			[]Rule{{Tool: "a", Action: Ask}, {Tool: "b", Command: ptr("ls"), Action: Ask}, {Tool: "c", Action: Allow}}},
	}
	for _, c := range cases {
		f, problems := ParseFile([]byte(c.src))
		if !f.Accepted || len(problems) != 0 || f.SerdeError != "" || len(f.Rules) != len(c.want) {
			t.Errorf("%q: accepted=%v problems=%v rules=%d", c.src, f.Accepted, problems, len(f.Rules))
			continue
		}
		for i, r := range f.RuleValues() {
			if !SameRecord(r, c.want[i]) {
				t.Errorf("%q: rule %d = %+v", c.src, i, r)
			}
		}
	}
}

// Every problem is reported, in document order, while SerdeError is the one
// serde meets first (it reports a missing key only at its table's end).
func TestParseFileReportsEveryProblem(t *testing.T) {
	src := "[[rules]]\ncommand = 1\nacton = \"allow\"\n[[rules]]\ntool = \"ok\"\n[[rules]]\ntool = 3\nextra = 1\n"
	f, problems := ParseFile([]byte(src))
	want := []struct {
		code problem.Code
		text string
	}{
		{problem.MissingKey, "rules"},
		{problem.InvalidValue, "1"},
		{problem.UnknownKey, "acton"},
		{problem.InvalidValue, "3"},
		{problem.UnknownKey, "extra"},
	}
	if f.Accepted || len(problems) != len(want) {
		t.Fatalf("accepted=%v problems=%v", f.Accepted, problems)
	}
	for i, w := range want {
		p := problems[i]
		if p.Code != w.code || src[p.Span.Start:p.Span.End] != w.text {
			t.Errorf("problem %d: %s %q, want %s %q", i, p.Code, src[p.Span.Start:p.Span.End], w.code, w.text)
		}
	}
	if f.SerdeError != "invalid type: integer `1`, expected a string" {
		t.Errorf("serde error %q", f.SerdeError)
	}
	if !strings.Contains(problems[2].Message, "did you mean `action`?") {
		t.Errorf("no suggestion: %q", problems[2].Message)
	}
}

// A rule written as an array reports every bad element, then the extra
// ones, in serde's order.
func TestParseFilePositionalProblems(t *testing.T) {
	src := "rules = [[\"a\", 1, \"x\", 2, [], \"Deny\", 7, 8], []]\n"
	f, problems := ParseFile([]byte(src))
	want := []string{"1", `"x"`, "2", "[]", `"Deny"`, "7, 8", "[]"}
	var got []string
	for _, p := range problems {
		got = append(got, src[p.Span.Start:p.Span.End])
	}
	if f.Accepted || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("accepted=%v problems at %q, want %q", f.Accepted, got, want)
	}
	if f.SerdeError != "invalid type: integer `1`, expected a string" {
		t.Errorf("serde error %q", f.SerdeError)
	}
	if !strings.Contains(problems[5].Message, "at most 6 elements (tool, command, command_exact, path, workspace, action), this one has 8") {
		t.Errorf("extra elements: %q", problems[5].Message)
	}
}

func TestParseFileKeepsTables(t *testing.T) {
	src := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n"
	f, _ := ParseFile([]byte(src))
	if !f.Accepted || len(f.Rules) != 1 {
		t.Fatal("rejected")
	}
	r := f.Rules[0]
	if e := r.Table.Get("command"); e == nil || src[e.KeySpan.Start:e.KeySpan.End] != "command" {
		t.Errorf("table lost its keys")
	}
	if src[r.Span.Start:r.Span.End] != "rules" {
		t.Errorf("header span %v", r.Span)
	}
	e := NewEngineFromFile(f)
	res := e.Check(Input{Command: "git push", Tool: DefaultTool, Cwd: "/w", Mode: Mode{Kind: OnFailure}})
	if res.RuleSource == nil || res.RuleSource.Kind != DeniedPrefix {
		t.Fatalf("source %+v", res.RuleSource)
	}
	if i, ok := f.RecordOf(*res.RuleSource); !ok || i != 0 {
		t.Errorf("RecordOf = %d %v", i, ok)
	}
}

// A rule written as an array keeps its elements as a table keyed by the
// fields they fill, each spanning its element.
func TestParseFileKeepsPositionalElements(t *testing.T) {
	src := "rules = [{ tool = \"a\" }, [\"exec_shell\", \"git push\", true]]\n"
	f, _ := ParseFile([]byte(src))
	if !f.Accepted || len(f.Rules) != 2 || f.Rules[0].Positional || !f.Rules[1].Positional {
		t.Fatalf("rules %+v", f.Rules)
	}
	r := f.Rules[1]
	if got := src[r.Span.Start:r.Span.End]; got != `["exec_shell", "git push", true]` {
		t.Errorf("span %q", got)
	}
	for key, want := range map[string]string{"tool": `"exec_shell"`, "command": `"git push"`, "command_exact": "true"} {
		e := r.Table.Get(key)
		if e == nil || src[e.Value.Span.Start:e.Value.Span.End] != want || e.KeySpan != e.Value.Span {
			t.Errorf("%s: %+v, want %s", key, e, want)
		}
	}
	if r.Table.Get("path") != nil {
		t.Error("a left-out field has an entry")
	}
}

func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		"", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\n", "rules = [{tool=1}, 2, {action={allow={}}}]",
		"[rules]\nx=1", "version = 1\n[[rules]]\ntool = \"x\"\ntool = \"y\"\n", "[[rules]]\n[rules.action]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, problems := ParseFile(src)
		if file.Accepted != (len(problems) == 0) || file.Accepted != (file.SerdeError == "") {
			t.Fatalf("accepted=%v problems=%d serde=%q", file.Accepted, len(problems), file.SerdeError)
		}
		if !file.Accepted && file.Rules != nil {
			t.Fatal("rejected file kept rules")
		}
		for i, p := range problems {
			if p.Span.Start < 0 || p.Span.End > len(src) || p.Span.Start > p.Span.End {
				t.Fatalf("bad span %+v", p.Span)
			}
			if i > 0 && problems[i-1].Span.Start > p.Span.Start {
				t.Fatal("problems out of document order")
			}
		}
		e := NewEngineFromFile(file)
		_ = e.Check(Input{Command: "git push", Tool: DefaultTool, Cwd: "/workspace", Mode: Mode{Kind: Never}})
		for _, r := range file.RuleValues() {
			back, _ := ParseFile([]byte(FormatRule(r)))
			if !back.Accepted || len(back.Rules) != 1 {
				t.Fatalf("FormatRule output rejected: %q", FormatRule(r))
			}
		}
	})
}
