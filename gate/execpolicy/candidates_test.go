package execpolicy

import (
	"testing"
)

// §5.3 approval-card persistence vectors (workspace /workspace), plus the
// writer's refusals.
func TestApprovalCandidates(t *testing.T) {
	cmd := func(c string) *string { return &c }
	cases := []struct {
		name     string
		semantic string
		input    map[string]any
		patch    []string
		ask      []Rule
		allow    []Rule
	}{
		{"shell", "exec_shell", map[string]any{"command": "  cargo test --workspace "}, nil,
			[]Rule{{Tool: "exec_shell", Command: cmd("cargo test --workspace"), Action: Ask}},
			[]Rule{{Tool: "exec_shell", Command: cmd("cargo test --workspace"), CommandExact: true, Workspace: cmd("/workspace"), Action: Allow}}},
		// The command-safety filter that withholds P for these is the caller's.
		{"unsafe shell still gets S", "exec_shell", map[string]any{"command": "rm -rf ~/"}, nil,
			[]Rule{{Tool: "exec_shell", Command: cmd("rm -rf ~/"), Action: Ask}},
			[]Rule{{Tool: "exec_shell", Command: cmd("rm -rf ~/"), CommandExact: true, Workspace: cmd("/workspace"), Action: Allow}}},
		{"write_file", "write_file", map[string]any{"path": "src/main.rs"}, nil,
			[]Rule{{Tool: "write_file", Path: cmd("src/main.rs"), Action: Ask}},
			[]Rule{{Tool: "write_file", Path: cmd("src/main.rs"), Workspace: cmd("/workspace"), Action: Allow}}},
		{"edit_file absolute", "edit_file", map[string]any{"path": "/workspace/src/lib.rs"}, nil,
			[]Rule{{Tool: "edit_file", Path: cmd("src/lib.rs"), Action: Ask}},
			[]Rule{{Tool: "edit_file", Path: cmd("src/lib.rs"), Workspace: cmd("/workspace"), Action: Allow}}},
		{"read_file never saved", "read_file", map[string]any{"path": "a"}, nil, nil, nil},
		{"other tools never saved", "fetch_url", map[string]any{"url": "x"}, nil, nil, nil},
		{"traversal", "write_file", map[string]any{"path": "../escape.rs"}, nil, nil, nil},
		{"outside", "write_file", map[string]any{"path": "/etc/passwd"}, nil, nil, nil},
		{"blank", "write_file", map[string]any{"path": "   "}, nil, nil, nil},
		{"empty", "write_file", map[string]any{"path": ""}, nil, nil, nil},
		{"drive-relative", "write_file", map[string]any{"path": "C:foo"}, nil, nil, nil},
		{"workspace root", "write_file", map[string]any{"path": "/workspace/"}, nil, nil, nil},
		{"empty command", "exec_shell", map[string]any{"command": " "}, nil, nil, nil},
		{"patch dedup", "apply_patch", map[string]any{}, []string{"src/a.rs", "./src//a.rs", "/workspace/src/b.rs"},
			[]Rule{{Tool: "apply_patch", Path: cmd("src/a.rs"), Action: Ask}, {Tool: "apply_patch", Path: cmd("src/b.rs"), Action: Ask}},
			[]Rule{{Tool: "apply_patch", Path: cmd("src/a.rs"), Workspace: cmd("/workspace"), Action: Allow},
				{Tool: "apply_patch", Path: cmd("src/b.rs"), Workspace: cmd("/workspace"), Action: Allow}}},
		{"patch with one unsafe file", "apply_patch", map[string]any{}, []string{"src/a.rs", "../x"}, nil, nil},
	}
	for _, c := range cases {
		ask := askCandidates(c.semantic, c.input, "/workspace", c.patch, false)
		if !sameRules(ask, c.ask) {
			t.Errorf("%s: S = %+v", c.name, ask)
		}
		allow, err := allowCandidates(ask, "/workspace", false)
		if err != nil || !sameRules(allow, c.allow) {
			t.Errorf("%s: P = %+v, %v", c.name, allow, err)
		}
	}
	if _, err := AllowCandidates("exec_shell", map[string]any{"command": "ls"}, "relative/ws", nil); err == nil {
		t.Error("P accepted a relative workspace")
	}
	if got, _ := AllowCandidates("exec_shell", map[string]any{"command": "ls"}, `C:\Repo`, nil); len(got) != 1 || *got[0].Workspace != "c:/repo" {
		t.Errorf("windows workspace not normalised: %+v", got)
	}
}

func TestValidateAllowRule(t *testing.T) {
	s := func(v string) *string { return &v }
	bad := []Rule{
		{Tool: "exec_shell", Command: s("ls"), CommandExact: true, Workspace: s("/w"), Action: Ask},
		{Tool: "exec_shell", Command: s("ls"), Workspace: s("/w"), Action: Allow},
		{Tool: "exec_shell", Command: s(" "), CommandExact: true, Workspace: s("/w"), Action: Allow},
		{Tool: "exec_shell", Command: s("ls"), CommandExact: true, Action: Allow},
		{Tool: "exec_shell", Command: s("ls"), CommandExact: true, Workspace: s("/"), Action: Allow},
		{Tool: "write_file", Workspace: s("/w"), Action: Allow},
		{Tool: "write_file", Path: s("/w"), Workspace: s("/w"), Action: Allow},
		{Tool: "write_file", Path: s("../a"), Workspace: s("/w"), Action: Allow},
	}
	for _, r := range bad {
		if validateAllowRule(r, false) == nil {
			t.Errorf("accepted %s", r.Label())
		}
	}
	if err := validateAllowRule(Rule{Tool: "write_file", Path: s("/w/a"), Workspace: s("/w"), Action: Allow}, false); err != nil {
		t.Error(err)
	}
}

func sameRules(a, b []Rule) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !SameRecord(a[i], b[i]) {
			return false
		}
	}
	return true
}
