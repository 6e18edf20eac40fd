package gate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

const lawJSON = `{"protected_invariants":[
  "Keep the build green",
  {"text":"The wire format is frozen","paths":["crates/protocol/**"],"action":"block"},
  {"text":"Release notes need human review","paths":["CHANGELOG.md"]}
]}`

// docs/codewhale/pipeline.md §9.1 table.
func TestSandboxPolicyTable(t *testing.T) {
	const ws = "/abs/repo"
	full := authority{session.Agent, session.FullAccess, true}
	wsw := workspaceWrite(ws, true)
	rows := []struct {
		a          authority
		configured string
		want       Sandbox
	}{
		{full, "", Sandbox{Type: "danger-full-access"}},
		{full, "workspace-write", wsw},
		{full, "read-only", readOnly()},
		{full, "external-sandbox", Sandbox{Type: "external-sandbox", NetworkAccess: boolPtr(true)}},
		{authority{session.Agent, session.Ask, false}, "danger-full-access", wsw},
		{authority{session.Agent, session.AutoReview, false}, "danger-full-access", wsw},
		{authority{session.Plan, session.FullAccess, true}, "danger-full-access", readOnly()},
		{authority{session.Plan, session.Ask, false}, "", readOnly()},
		{authority{session.Agent, session.Ask, false}, "", wsw},
		{authority{session.Yolo, session.Ask, false}, "", Sandbox{Type: "danger-full-access"}},
		// The compare is exact and case-sensitive: `Read-Only` does not clamp.
		{full, "Read-Only", Sandbox{Type: "danger-full-access"}},
		{authority{session.Agent, session.Ask, false}, "read-only", readOnly()},
	}
	for _, r := range rows {
		if got := sandboxPolicy(r.a, r.configured, ws, true); !reflect.DeepEqual(got, r.want) {
			t.Errorf("%+v %q: %+v, want %+v", r.a, r.configured, got, r.want)
		}
	}
	if !reflect.DeepEqual(wsw.WritableRoots, []string{ws}) || !*wsw.NetworkAccess {
		t.Errorf("workspace-write shape %+v", wsw)
	}

	// Through Decide, from the files and the request.
	fx := load(t, files{config: "sandbox_mode = \"workspace-write\"\n"}).noFatal(t)
	d := fx.decide(t, withPosture(fx.call("read", map[string]any{"path": "a"}), session.FullAccess), Deps{})
	if !reflect.DeepEqual(d.Sandbox, workspaceWrite(fx.ws, true)) {
		t.Errorf("full access + workspace-write: %+v", d.Sandbox)
	}
	req := fx.call("read", map[string]any{"path": "a"})
	req.Mode = session.Plan
	if d := fx.decide(t, req, Deps{}); d.Sandbox.Type != "read-only" {
		t.Errorf("plan: %+v", d.Sandbox)
	}
}

// docs/codewhale/pipeline.md §9.2: invalid inputs, not strictly wider, Ask → forced prompt,
// other postures → denied.
func TestSandboxEscalationRules(t *testing.T) {
	const ws = "/abs/repo"
	ask := authority{session.Agent, session.Ask, false}
	ro, wsw, dfa := readOnly(), workspaceWrite(ws, true), Sandbox{Type: "danger-full-access"}
	notWider := func(mode, cur string) string {
		return "Permission denied: sandbox escalation to '" + mode + "' is not strictly wider than the current '" + cur + "' sandbox."
	}
	rows := []struct {
		label   string
		tool    string
		input   map[string]any
		current Sandbox
		a       authority
		blocked string // exact, or "" when not blocked
		prompt  string
		policy  *Sandbox
	}{
		{"action wait", "bash", map[string]any{"action": "wait", "sandbox_permissions": "danger-full-access", "justification": "x"}, wsw, ask,
			"Invalid input: sandbox_permissions is only valid for Bash action=run.", "", nil},
		{"justification alone", "bash", map[string]any{"command": "x", "justification": "because"}, wsw, ask,
			"Invalid input: justification requires sandbox_permissions.", "", nil},
		{"non-string", "bash", map[string]any{"command": "x", "sandbox_permissions": true, "justification": "because"}, wsw, ask,
			"Invalid input: sandbox_permissions must be a string.", "", nil},
		{"missing justification", "exec_shell", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access"}, wsw, ask,
			"Invalid input: sandbox_permissions requires a justification.", "", nil},
		{"blank justification", "Bash", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access", "justification": "  "}, wsw, ask,
			"Invalid input: justification expected a non-empty sentence.", "", nil},
		{"unknown value", "bash", map[string]any{"command": "x", "sandbox_permissions": "root", "justification": "j"}, wsw, ask,
			"Invalid input: unknown sandbox_permissions value \"root\".", "", nil},
		{"ro → ws-write", "bash", map[string]any{"command": "x", "sandbox_permissions": "workspace-write", "justification": "j"}, ro, ask,
			"", "Sandbox escalation to 'workspace-write' for this exact call: j", &Sandbox{Type: "workspace-write", WritableRoots: []string{ws}, NetworkAccess: boolPtr(false)}},
		{"ro → full", "bash", map[string]any{"action": "run", "command": "x", "sandbox_permissions": "danger-full-access", "justification": "j"}, ro, ask,
			"", "Sandbox escalation to 'danger-full-access' for this exact call: j", &dfa},
		{"ws-write → full", "bash", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access", "justification": "j"}, wsw, ask,
			"", "Sandbox escalation to 'danger-full-access' for this exact call: j", &dfa},
		{"ws-write → ws-write", "bash", map[string]any{"command": "x", "sandbox_permissions": "workspace-write", "justification": "j"}, wsw, ask,
			notWider("workspace-write", "workspace-write"), "", nil},
		{"full → full", "bash", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access", "justification": "j"}, dfa, ask,
			notWider("danger-full-access", "danger-full-access"), "", nil},
		{"full → ws-write", "bash", map[string]any{"command": "x", "sandbox_permissions": "workspace-write", "justification": "j"}, dfa, ask,
			notWider("workspace-write", "danger-full-access"), "", nil},
		{"ws-write → ro", "bash", map[string]any{"command": "x", "sandbox_permissions": "read-only", "justification": "j"}, wsw, ask,
			notWider("read-only", "workspace-write"), "", nil},
		{"auto-review", "bash", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access", "justification": "j"}, wsw, authority{session.Agent, session.AutoReview, false},
			"Sandbox escalation requires a one-shot user approval, but the current Auto-Review posture cannot provide it.", "", nil},
		{"never", "bash", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access", "justification": "j"}, wsw, authority{session.Agent, session.Never, false},
			"Sandbox escalation requires a one-shot user approval, but the current Never posture cannot provide it.", "", nil},
		{"full access", "bash", map[string]any{"command": "x", "sandbox_permissions": "danger-full-access", "justification": "j"}, ro, authority{session.Agent, session.FullAccess, true},
			"Sandbox escalation requires a one-shot user approval, but the current Full Access posture cannot provide it.", "", nil},
	}
	for _, r := range rows {
		esc, ok := sandboxEscalation(r.tool, r.input, r.current, r.a, ws)
		if !ok {
			t.Errorf("%s: not an escalation", r.label)
			continue
		}
		if esc.blocked != r.blocked || esc.prompt != r.prompt {
			t.Errorf("%s: blocked %q prompt %q, want %q / %q", r.label, esc.blocked, esc.prompt, r.blocked, r.prompt)
		}
		if r.policy != nil && (esc.policy == nil || !reflect.DeepEqual(*esc.policy, *r.policy)) {
			t.Errorf("%s: policy %+v, want %+v", r.label, esc.policy, r.policy)
		}
	}
	// Other tools carrying the field names are ignored, as are shell calls without them.
	for _, name := range []string{"write", "File", "task_shell_start", "Run"} {
		if _, ok := sandboxEscalation(name, map[string]any{"sandbox_permissions": "danger-full-access", "justification": "j"}, ro, ask, ws); ok {
			t.Errorf("%s: escalation", name)
		}
	}
	if _, ok := sandboxEscalation("bash", map[string]any{"command": "ls"}, ro, ask, ws); ok {
		t.Error("plain bash: escalation")
	}
}

// §9.2 through Decide: the prompt is forced and keeps an earlier forced
// description; other postures deny at layer 9; an invalid input denies.
func TestSandboxEscalationThroughDecide(t *testing.T) {
	fx := load(t, files{git: true, config: "sandbox_mode = \"workspace-write\"\n"}).noFatal(t)
	in := map[string]any{"command": "touch x", "sandbox_permissions": "danger-full-access", "justification": "needs the whole disk"}
	d := fx.decide(t, fx.call("bash", in), Deps{Sessions: approvedFor("bash", "shell:touch")})
	checkTrace(t, d)
	if d.Decision != Ask || d.Layer != LayerApproval || d.Prompt == nil || !d.Prompt.Forced ||
		d.Reason != "Sandbox escalation to 'danger-full-access' for this exact call: needs the whole disk" {
		t.Errorf("ask escalation: %s layer %d %q %+v", d.Decision, d.Layer, d.Reason, d.Prompt)
	}
	if d.Sandbox.Type != "workspace-write" {
		t.Errorf("sandbox before approval: %+v", d.Sandbox)
	}

	// Already forced by the publish floor: the descriptions are joined.
	push := map[string]any{"command": "git push origin main", "sandbox_permissions": "danger-full-access", "justification": "j"}
	d = fx.decide(t, fx.call("bash", push), Deps{})
	want := "Sandbox escalation to 'danger-full-access' for this exact call: j. Additional approval gate: Built-in safety gate requires approval: publish-like action requires durable review"
	if d.Decision != Ask || d.Reason != want {
		t.Errorf("joined: %s %q", d.Decision, d.Reason)
	}

	for _, p := range []session.Posture{session.Never, session.FullAccess} {
		d := fx.decide(t, withPosture(fx.call("bash", in), p), Deps{})
		checkTrace(t, d)
		if d.Decision != Deny || d.Layer != LayerSandbox || !strings.HasPrefix(d.Reason, "Sandbox escalation requires a one-shot user approval, but the current "+p.Label()+" posture") {
			t.Errorf("%s: %s layer %d %q", p, d.Decision, d.Layer, d.Reason)
		}
	}
	bad := map[string]any{"command": "ls", "justification": "j"}
	if d := fx.decide(t, fx.call("bash", bad), Deps{}); d.Decision != Deny || d.Layer != LayerSandbox || !strings.HasPrefix(d.Reason, "Invalid input") {
		t.Errorf("invalid: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}
