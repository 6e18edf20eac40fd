package execpolicy

import "testing"

func TestFormatRule(t *testing.T) {
	s := func(v string) *string { return &v }
	r := Rule{Tool: "exec_shell", Command: s("make test"), CommandExact: true, Workspace: s("/home/dev/src/widget"), Action: Allow}
	want := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"make test\"\ncommand_exact = true\nworkspace = \"/home/dev/src/widget\"\naction = \"allow\"\n"
	if got := FormatRule(r); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := FormatRule(Rule{Tool: "write_file", Path: s("Cargo.lock"), Action: Ask}); got != "[[rules]]\ntool = \"write_file\"\npath = \"Cargo.lock\"\n" {
		t.Errorf("ask record: %q", got)
	}
	if got := FormatInlineRule(Rule{Tool: "t", Command: s(""), Action: Deny}); got != `{ tool = "t", command = "", action = "deny" }` {
		t.Errorf("inline: %q", got)
	}
}

// Whatever the strings hold, the rendered record parses back to itself.
func TestFormatRuleRoundTrip(t *testing.T) {
	s := func(v string) *string { return &v }
	values := []string{`rm -rf "/"`, `C:\Repo\x`, "a\nb\tc\rd", "\x00\x01\x1f\x7f", "é ☃ 𝄞", `'''`, `"""`, "\\u0041", "#not a comment", ""}
	for _, v := range values {
		for _, r := range []Rule{
			{Tool: v, Command: s(v), CommandExact: true, Path: s(v), Workspace: s(v), Action: Deny},
			{Tool: v, Action: Ask},
		} {
			for _, text := range []string{FormatRule(r), "rules = [" + FormatInlineRule(r) + "]\n"} {
				f, problems := ParseFile([]byte(text))
				if !f.Accepted || len(f.Rules) != 1 || !SameRecord(f.Rules[0].Rule, r) {
					t.Errorf("%q did not round-trip: %v %+v", text, problems, f.Rules)
				}
			}
		}
	}
}

// The duplicate test compares all six raw fields; absent differs from "".
func TestSameRecord(t *testing.T) {
	s := func(v string) *string { return &v }
	base := Rule{Tool: "exec_shell", Command: s("ls"), Action: Ask}
	variants := []Rule{
		{Tool: "exec_shell", Command: s("ls "), Action: Ask},
		{Tool: "exec_shell", Command: s("ls"), CommandExact: true, Action: Ask},
		{Tool: "exec_shell", Command: s("ls"), Path: s(""), Action: Ask},
		{Tool: "exec_shell", Command: s("ls"), Workspace: s("/w"), Action: Ask},
		{Tool: "exec_shell", Command: s("ls"), Action: Allow},
		{Tool: "exec_shell", Action: Ask},
		{Tool: "read_file", Command: s("ls"), Action: Ask},
	}
	if !SameRecord(base, Rule{Tool: "exec_shell", Command: s("ls"), Action: Ask}) {
		t.Error("equal records differ")
	}
	for _, v := range variants {
		if SameRecord(base, v) {
			t.Errorf("%+v counted as the same record", v)
		}
	}
}
