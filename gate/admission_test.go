package gate

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// docs/codewhale/pipeline.md §2 "Vectors (list gate)".
func TestListGateVectors(t *testing.T) {
	none := []string(nil)
	type row struct {
		allow   []string // nil = no allow list
		noAllow bool     // the allow list is absent
		deny    []string
		tool    string
		want    string // "allowed", "blocked" (allow list) or "denied" (deny list)
	}
	rows := []row{
		{allow: []string{"bash", "grep"}, tool: "read", want: "blocked"},
		{allow: []string{"bash", "read"}, tool: "Read", want: "allowed"},
		{noAllow: true, tool: "write", want: "allowed"},
		{allow: []string{}, tool: "bash", want: "blocked"},
		{allow: []string{"mcp_*", "ReadFile"}, tool: "mcp_slack_send", want: "allowed"},
		{allow: []string{"mcp_*", "ReadFile"}, tool: "readfile", want: "allowed"},
		{allow: []string{"mcp_*", "ReadFile"}, tool: "ReadFile", want: "allowed"},
		{allow: []string{"mcp_*", "ReadFile"}, tool: "exec_shell", want: "blocked"},
		{noAllow: true, deny: []string{"exec_shell"}, tool: "exec_shell", want: "denied"},
		{noAllow: true, deny: []string{"exec_shell"}, tool: "Exec_Shell", want: "denied"},
		{noAllow: true, deny: []string{"exec_shell"}, tool: "read_file", want: "allowed"},
		{noAllow: true, deny: []string{"mcp_acme_*"}, tool: "mcp_acme_get_profile", want: "denied"},
		{noAllow: true, deny: []string{"mcp_acme_*"}, tool: "mcp_other_make_thing", want: "allowed"},
		{noAllow: true, deny: none, tool: "exec_shell", want: "allowed"},
		{noAllow: true, deny: []string{}, tool: "exec_shell", want: "allowed"},
		{allow: []string{"exec_shell"}, deny: []string{"exec_shell"}, tool: "exec_shell", want: "denied"},
		{allow: []string{"read_file"}, tool: "read_file", want: "allowed"},
		{allow: []string{"read_file", "grep_files"}, tool: "read", want: "allowed"},
		{allow: []string{"Read_File", "Grep_Files"}, tool: "read", want: "allowed"},
		{allow: []string{"read"}, tool: "File", want: "allowed"},
		{noAllow: true, deny: []string{"bash"}, tool: "exec_shell", want: "denied"},
	}
	for _, r := range rows {
		req := Request{Tool: r.tool, Input: map[string]any{}, Workspace: "/ws", DisallowedTools: r.deny}
		if !r.noAllow {
			req = req.WithAllowList(r.allow)
		}
		reason, _, _ := admission(req, true, false, release.Release{})
		var got string
		switch {
		case strings.Contains(reason, "(disallowedTools)"):
			got = "denied"
		case strings.Contains(reason, "(allowedTools)"):
			got = "blocked"
		default:
			got = "allowed" // the list gate passed; later gates may still refuse
		}
		if got != r.want {
			t.Errorf("allow=%v deny=%v tool=%s: list gate %s (reason %q), want %s", r.allow, r.deny, r.tool, got, reason, r.want)
		}
		if got == "denied" && reason != "Tool '"+r.tool+"' is disallowed for this command (disallowedTools)." {
			t.Errorf("deny reason %q", reason)
		}
		if got == "blocked" && reason != "Tool '"+r.tool+"' is not in the allowed tools for this command (allowedTools)." {
			t.Errorf("allow-list reason %q", reason)
		}
	}
}

// The same vectors through Decide, for the registered tool names: list
// refusals are layer-2 denies, and a passing list gate is not.
func TestListGateThroughDecide(t *testing.T) {
	fx := load(t, files{git: true}).noFatal(t)
	rows := []struct {
		allow   []string
		noAllow bool
		deny    []string
		tool    string
		input   map[string]any
		denied  bool
	}{
		{allow: []string{"bash", "grep"}, tool: "read", input: map[string]any{"path": "a"}, denied: true},
		{allow: []string{"bash", "read"}, tool: "read", input: map[string]any{"path": "a"}},
		{allow: []string{}, tool: "bash", input: map[string]any{"command": "ls"}, denied: true},
		{allow: []string{"mcp_*"}, tool: "mcp_slack_send", input: map[string]any{}},
		{allow: []string{"mcp_*", "ReadFile"}, tool: "exec_shell", input: map[string]any{"command": "ls"}, denied: true},
		{noAllow: true, deny: []string{"exec_shell"}, tool: "exec_shell", input: map[string]any{"command": "ls"}, denied: true},
		{noAllow: true, deny: []string{"exec_shell"}, tool: "read_file", input: map[string]any{"path": "a"}},
		{noAllow: true, deny: []string{"mcp_acme_*"}, tool: "mcp_acme_get_profile", input: map[string]any{}, denied: true},
		{allow: []string{"exec_shell"}, deny: []string{"exec_shell"}, tool: "exec_shell", input: map[string]any{"command": "ls"}, denied: true},
		{allow: []string{"read_file", "grep_files"}, tool: "read", input: map[string]any{"path": "a"}},
		{allow: []string{"read"}, tool: "File", input: map[string]any{"action": "write", "path": "src/x.rs"}},
		{noAllow: true, deny: []string{"bash"}, tool: "exec_shell", input: map[string]any{"command": "ls"}, denied: true},
	}
	for _, r := range rows {
		req := fx.call(r.tool, r.input)
		req.DisallowedTools = r.deny
		if !r.noAllow {
			req = req.WithAllowList(r.allow)
		}
		d := fx.decide(t, req, Deps{})
		checkTrace(t, d)
		gotDenied := d.Decision == Deny && d.Layer == LayerAdmission
		if gotDenied != r.denied {
			t.Errorf("allow=%v deny=%v %s: %s at layer %d (%s)", r.allow, r.deny, r.tool, d.Decision, d.Layer, d.Reason)
		}
	}
}

// docs/codewhale/pipeline.md §2 gate 2 and "Plan-mode command-block vectors": Plan blocks
// the 7 shell names plus code_execution and js_execution, by name;
// Operate blocks none.
func TestPlanModeCommandBlock(t *testing.T) {
	fx := load(t, files{git: true}).noFatal(t)
	names := []string{"bash", "Bash", "exec_shell", "exec_shell_wait", "exec_shell_interact", "exec_wait", "exec_interact", "code_execution", "js_execution"}
	for _, name := range names {
		for _, input := range []map[string]any{{"command": "ls"}, {"action": "wait"}} {
			req := fx.call(name, input)
			req.Mode = session.Plan
			d := fx.decide(t, req, Deps{})
			checkTrace(t, d)
			want := "Tool '" + name + "' is not available in Plan mode — switch to Work mode to run commands."
			if d.Decision != Deny || d.Layer != LayerAdmission || d.Reason != want {
				t.Errorf("plan %s %v: %s layer %d %q", name, input, d.Decision, d.Layer, d.Reason)
			}
			req.Mode = session.Operate
			d = fx.decide(t, req, Deps{})
			checkTrace(t, d)
			if d.Layer == LayerAdmission {
				t.Errorf("operate %s %v: refused at admission: %s", name, input, d.Reason)
			}
		}
	}
	// Not a command name: Plan does not refuse it at layer 2.
	req := fx.call("read", map[string]any{"path": "a"})
	req.Mode = session.Plan
	if d := fx.decide(t, req, Deps{}); d.Decision != Allow {
		t.Errorf("plan read: %s %s", d.Decision, d.Reason)
	}
}

// §2 gate 7: no execution path.
func TestUnregisteredTool(t *testing.T) {
	fx := load(t, files{}).noFatal(t)
	d := fx.decide(t, fx.call("mystery_tool", map[string]any{}), Deps{})
	if d.Decision != Deny || d.Layer != LayerAdmission || !strings.Contains(d.Reason, "is not available") {
		t.Errorf("unregistered: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}

// §1.6: headless hosts hide the shell unless allow_shell = true; allow_shell
// = false hides it everywhere but Yolo.
func TestShellAvailability(t *testing.T) {
	off := load(t, files{config: "allow_shell = false\n"}).noFatal(t)
	unset := load(t, files{}).noFatal(t)
	on := load(t, files{config: "allow_shell = true\n"}).noFatal(t)
	bash := map[string]any{"command": "ls"}
	cases := []struct {
		fx      fixture
		origin  session.Origin
		mode    session.Mode
		refused bool
	}{
		{off, session.Interactive, session.Agent, true},
		{off, session.Interactive, session.Yolo, false},
		{unset, session.Interactive, session.Agent, false},
		{unset, session.Headless, session.Agent, true},
		{on, session.Headless, session.Agent, false},
	}
	for i, c := range cases {
		req := c.fx.call("bash", bash)
		req.Origin, req.Mode = c.origin, c.mode
		d := c.fx.decide(t, req, Deps{})
		refused := d.Layer == LayerAdmission && strings.Contains(d.Reason, "shell is disabled")
		if refused != c.refused {
			t.Errorf("case %d: %s layer %d %q", i, d.Decision, d.Layer, d.Reason)
		}
	}
}
