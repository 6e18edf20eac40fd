package execpolicy

import "testing"

// §2.4 label and specificity, byte lengths of the raw strings.
func TestLabelAndSpecificity(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		rule  Rule
		label string
		spec  int
	}{
		{Rule{Tool: "exec_shell"}, "tool=exec_shell", 10},
		{Rule{Tool: "exec_shell", Command: s("cargo test"), CommandExact: true}, "tool=exec_shell command=cargo test command_exact=true", 10 + 1010 + 1},
		{Rule{Tool: "edit_file", Path: s(" /workspace/tmp/project/ ")}, "tool=edit_file path= /workspace/tmp/project/ ", 9 + 1025},
		{Rule{Tool: "t", Command: s(""), Path: s("é"), Workspace: s("/w")}, "tool=t command= path=é workspace=/w", 1 + 1000 + 1002 + 1002},
		{Rule{Tool: "", CommandExact: true}, "tool= command_exact=true", 1},
	}
	for _, c := range cases {
		if got := c.rule.Label(); got != c.label {
			t.Errorf("label %q, want %q", got, c.label)
		}
		if got := c.rule.Specificity(); got != c.spec {
			t.Errorf("%s: specificity %d, want %d", c.label, got, c.spec)
		}
	}
}

func TestParseMode(t *testing.T) {
	cases := map[string]Mode{
		"UnlessTrusted":      {Kind: UnlessTrusted},
		"OnFailure":          {Kind: OnFailure},
		"OnRequest":          {Kind: OnRequest},
		"Never":              {Kind: Never},
		"Reject{rules:true}": {Kind: Reject, RejectRules: true},
		"Reject{sandbox_approval:true, rules:false, mcp_elicitations:true}": {Kind: Reject},
	}
	for s, want := range cases {
		got, err := ParseMode(s)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %+v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "never", "Reject{rules:yes}", "Reject{rulez:true}", "Reject{rules:true", "}", "rules:true}", "Never}"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) accepted", bad)
		}
	}
	if (Mode{Kind: Reject, RejectRules: true}).String() != "Reject{rules:true}" {
		t.Error("Reject spelling")
	}
}

// §4.2 examples (workspace /workspace unless given), both builds.
func TestRelPath(t *testing.T) {
	cases := []struct {
		value, workspace string
		sensitive        any // string, or nil for invalid
		folding          any
	}{
		{"src/a.rs", "/workspace", "src/a.rs", "src/a.rs"},
		{"/workspace/src/a.rs", "/workspace", "src/a.rs", "src/a.rs"},
		{"./src//a.rs", "/workspace", "src/a.rs", "src/a.rs"},
		{"src/../a.rs", "/workspace", nil, nil},
		{"/other/a.rs", "/workspace", nil, nil},
		{"/workspace2/a.rs", "/workspace", nil, nil},
		{"C:foo", "/workspace", nil, nil},
		{`D:\ws\a`, `C:\ws`, nil, nil},
		{`C:\WS\Src\Main.rs`, `c:\WS`, "Src/Main.rs", "src/main.rs"},
		{".", "/workspace", "", ""},
		{"./", "/workspace", "", ""},
		{"", "/workspace", nil, nil},
		{"a", "", nil, nil},
		{"a", "rel", nil, nil},
		{"//server/share/x", "/server", "share/x", "share/x"},
		{"*", "/workspace", "*", "*"},
	}
	for _, c := range cases {
		for fold, want := range map[bool]any{false: c.sensitive, true: c.folding} {
			got, ok := RelPath(c.value, c.workspace, fold)
			if (want == nil) == ok || ok && got != want {
				t.Errorf("RelPath(%q, %q, fold=%v) = %q %v, want %v", c.value, c.workspace, fold, got, ok, want)
			}
		}
	}
}

// §4.3: equality scopes, POSIX case kept, Windows lower-cased.
func TestWorkspaceScope(t *testing.T) {
	cases := map[string]any{
		"/workspace": "/workspace", "/workspace/": "/workspace", " /a/./b// ": "/a/b", "/Repo": "/Repo",
		`C:\Repo\CodeWhale`: "c:/repo/codewhale", "c:/": nil, "/": nil, "C:": nil, "C:x": nil,
		"rel": nil, "": nil, "/a/../b": nil,
	}
	for value, want := range cases {
		got, ok := WorkspaceScope(value)
		if (want == nil) == ok || ok && got != want {
			t.Errorf("WorkspaceScope(%q) = %q %v, want %v", value, got, ok, want)
		}
	}
}
