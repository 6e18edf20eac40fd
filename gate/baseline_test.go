package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// docs/codewhale/pipeline.md §4.4, first table
// (non_bypassable_registered_tools_auto_approve_in_full_access).
func TestNonBypassableVectors(t *testing.T) {
	rows := []struct {
		tool, input   string // input: "" or the action
		autoApprove   bool
		needsApproval bool
		forces        bool
	}{
		{"start_registry_mcp_server", "", true, false, false},
		{"start_registry_mcp_server", "", false, true, false},
		{"start_mcp_server", "", true, false, true},
		{"start_mcp_server", "", false, true, true},
		{"rlm", "eval", true, false, true},
		{"exec_shell", "", true, false, false},
	}
	for _, r := range rows {
		in := map[string]any{"command": "cargo test"}
		if r.input != "" {
			in = map[string]any{"action": r.input}
		}
		sem := tool.Semantic(r.tool, in)
		req := requirement(r.tool, sem, in, nil)
		if req != ReqRequired {
			t.Errorf("%s: requirement %s, want Required", r.tool, req)
		}
		if nb := nonBypassable(r.tool, sem, req); nb != r.forces {
			t.Errorf("%s: nonBypassable %v, want %v", r.tool, nb, r.forces)
		}
		a := authority{mode: session.Agent, posture: session.Ask, autoApprove: r.autoApprove}
		if r.autoApprove {
			a.posture = session.FullAccess
		}
		got := resolve(a, req, nonBypassable(r.tool, sem, req))
		if (got == resolvePrompt) != r.needsApproval {
			t.Errorf("%s auto=%v: resolve %d, needs approval want %v", r.tool, r.autoApprove, got, r.needsApproval)
		}
	}

	// The same rows through Decide: Ask forces the non-bypassable ones, Full
	// Access runs them all.
	fx := load(t, files{git: true}).noFatal(t)
	for _, r := range rows {
		if r.tool == "exec_shell" {
			continue
		}
		in := map[string]any{}
		if r.input != "" {
			in["action"] = r.input
		}
		req := fx.call(r.tool, in)
		if r.autoApprove {
			req = withPosture(req, session.FullAccess)
			if d := fx.decide(t, req, Deps{}); d.Decision != Allow {
				t.Errorf("full access %s: %s %q", r.tool, d.Decision, d.Reason)
			}
			continue
		}
		d := fx.decide(t, req, Deps{})
		if d.Decision != Ask || d.Prompt == nil || d.Prompt.Forced != r.forces {
			t.Errorf("ask %s: %s %+v", r.tool, d.Decision, d.Prompt)
		}
	}
}

// docs/codewhale/pipeline.md §4.4, resolver truth table.
func TestResolverTruthTable(t *testing.T) {
	type auth = authority
	var (
		agentAsk   = auth{session.Agent, session.Ask, false}
		agentFull  = auth{session.Agent, session.FullAccess, true}
		yoloFull   = auth{session.Yolo, session.FullAccess, true}
		agentNever = auth{session.Agent, session.Never, false}
		staleNever = auth{session.Agent, session.Never, true}
		yoloNever  = auth{session.Yolo, session.Never, false}
	)
	anyAuth := []auth{agentAsk, {session.Agent, session.AutoReview, false}, agentNever, agentFull, yoloFull, {session.Plan, session.Ask, false}}
	for _, a := range anyAuth {
		for _, nb := range []bool{false, true} {
			if got := resolve(a, ReqAuto, nb); got != resolveAllow {
				t.Errorf("%+v Auto nb=%v: %d, want Allow", a, nb, got)
			}
		}
	}
	rows := []struct {
		a    auth
		req  Requirement
		nb   bool
		want resolution
	}{
		{agentAsk, ReqSuggest, false, resolvePrompt},
		{agentAsk, ReqSuggest, true, resolvePrompt},
		{agentAsk, ReqRequired, false, resolvePrompt},
		{agentAsk, ReqRequired, true, resolvePrompt},
		{agentFull, ReqSuggest, false, resolveAllow},
		{agentFull, ReqSuggest, true, resolveAllow},
		{agentFull, ReqRequired, false, resolveAllow},
		{agentFull, ReqRequired, true, resolveAllow},
		{yoloFull, ReqSuggest, false, resolveAllow},
		{yoloFull, ReqRequired, true, resolveAllow},
		{agentNever, ReqSuggest, false, resolveDeny},
		{agentNever, ReqRequired, true, resolveDeny},
		{staleNever, ReqSuggest, false, resolveAllow},
		{yoloNever, ReqSuggest, false, resolveAllow},
	}
	for _, r := range rows {
		if got := resolve(r.a, r.req, r.nb); got != r.want {
			t.Errorf("%+v %s nb=%v: %d, want %d", r.a, r.req, r.nb, got, r.want)
		}
	}
}

// docs/codewhale/pipeline.md §4.4 "Carve-out posture vectors", on a qualifying write.
func TestCarveOutPostureVectors(t *testing.T) {
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "src", "main.rs"), nil, 0o644))
	rows := []struct {
		mode    session.Mode
		posture session.Posture
		auto    bool
		want    bool
	}{
		{session.Agent, session.Ask, false, true},
		{session.Operate, session.Ask, false, true},
		{session.Agent, session.FullAccess, true, false},
		{session.Yolo, session.FullAccess, true, false},
		{session.Yolo, session.Ask, false, false},
		{session.Agent, session.Never, false, false},
		{session.Agent, session.AutoReview, false, false},
		{session.Plan, session.Ask, false, false},
	}
	for _, r := range rows {
		in := map[string]any{"path": "src/main.rs", "content": "x"}
		p := &plan{req: Request{Tool: "write", Input: in, Workspace: ws}, input: in, semantic: "write_file", require: ReqSuggest,
			s: resolvedSession{authority: authority{mode: r.mode, posture: r.posture, autoApprove: r.auto}}}
		if got := p.carveOut(); got != r.want {
			t.Errorf("(%s,%s,%v): carve-out %v, want %v", r.mode, r.posture, r.auto, got, r.want)
		}
	}
	// Required (not Suggest) never qualifies, nor a non-write semantic.
	in := map[string]any{"path": "src/main.rs"}
	p := &plan{req: Request{Tool: "write", Input: in, Workspace: ws}, input: in, semantic: "write_file", require: ReqRequired,
		s: resolvedSession{authority: authority{mode: session.Agent, posture: session.Ask}}}
	if p.carveOut() {
		t.Error("Required requirement qualified for the carve-out")
	}
	p.require, p.semantic = ReqSuggest, "fim_edit"
	if p.carveOut() {
		t.Error("fim_edit qualified for the carve-out")
	}
}

// docs/codewhale/pipeline.md §4.4 "Plan write-block vectors".
func TestPlanWriteBlockVectors(t *testing.T) {
	fx := load(t, files{git: true}).noFatal(t)
	blocked := []struct {
		name  string
		input map[string]any
	}{
		{"write", map[string]any{"path": "src/x.rs", "content": "x"}},
		{"edit", map[string]any{"path": "src/x.rs"}},
		{"write_file", map[string]any{"path": "src/x.rs"}},
		{"edit_file", map[string]any{"path": "src/x.rs"}},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: src/x.rs\n+x\n*** End Patch"}},
		{"File", map[string]any{"action": "write", "path": "src/x.rs"}},
		{"File", map[string]any{"action": "edit", "path": "src/x.rs"}},
		{"File", map[string]any{"action": "patch", "patch": ""}},
		{"mcp_filesystem_write", map[string]any{"path": "x"}},
	}
	allowed := []struct {
		name  string
		input map[string]any
	}{
		{"File", map[string]any{"action": "read", "path": "src/x.rs"}},
		{"File", map[string]any{"action": "list", "path": "src"}},
		{"File", map[string]any{"action": "search_name", "pattern": "x"}},
		{"File", map[string]any{"action": "search_content", "pattern": "x"}},
		{"mcp_filesystem_read", map[string]any{"path": "x"}},
		{"read_file", map[string]any{"path": "src/x.rs"}},
		{"request_user_input", map[string]any{"question": "?"}},
	}
	for _, c := range blocked {
		req := fx.call(c.name, c.input)
		req.Mode = session.Plan
		d := fx.decide(t, req, Deps{})
		checkTrace(t, d)
		want := fmt.Sprintf("Tool '%s' is not available in Plan mode — switch to Work mode to make changes.", c.name)
		if d.Decision != Deny || d.Layer != LayerBaseline || d.Reason != want {
			t.Errorf("plan %s %v: %s layer %d %q", c.name, c.input, d.Decision, d.Layer, d.Reason)
		}
		req.Mode = session.Operate
		if d := fx.decide(t, req, Deps{}); d.Layer == LayerBaseline && d.Decision == Deny {
			t.Errorf("operate %s: blocked at baseline: %q", c.name, d.Reason)
		}
	}
	for _, c := range allowed {
		req := fx.call(c.name, c.input)
		req.Mode = session.Plan
		d := fx.decide(t, req, Deps{})
		checkTrace(t, d)
		if d.Layer == LayerBaseline && d.Decision == Deny {
			t.Errorf("plan %s %v: blocked at baseline: %q", c.name, c.input, d.Reason)
		}
		if c.name != "mcp_filesystem_read" && d.Decision != Allow {
			t.Errorf("plan %s %v: %s layer %d %q", c.name, c.input, d.Decision, d.Layer, d.Reason)
		}
	}
}

// docs/codewhale/pipeline.md §4.2, spot rows of the requirement table.
func TestRequirementTable(t *testing.T) {
	rows := []struct {
		name  string
		input map[string]any
		want  Requirement
	}{
		// bash: Auto only for the parallel read-only shape and a read-only command.
		{"bash", map[string]any{"command": "ls"}, ReqAuto},
		{"bash", map[string]any{"command": "git status"}, ReqAuto},
		{"Bash", map[string]any{"action": "run", "command": "ls", "cwd": "src", "timeout_ms": 1000.0}, ReqAuto},
		{"exec_shell", map[string]any{"action": nil, "command": "ls", "background": false, "tty": false, "interactive": false, "combined_output": false}, ReqAuto},
		{"bash", map[string]any{"command": "ls", "background": true}, ReqRequired},
		{"bash", map[string]any{"command": "ls", "tty": true}, ReqRequired},
		{"bash", map[string]any{"command": "ls", "stdin": "x"}, ReqRequired},
		{"bash", map[string]any{"command": "ls", "input": "x"}, ReqRequired},
		{"bash", map[string]any{"command": "ls", "data": "x"}, ReqRequired},
		{"bash", map[string]any{"command": "ls", "action": "wait"}, ReqRequired},
		{"bash", map[string]any{"command": "cargo test"}, ReqRequired},
		{"bash", map[string]any{"command": "ls > out.txt"}, ReqRequired},
		{"bash", map[string]any{}, ReqRequired},
		// File by action.
		{"File", map[string]any{"action": "read"}, ReqAuto},
		{"File", map[string]any{}, ReqAuto},
		{"File", map[string]any{"action": "list"}, ReqAuto},
		{"File", map[string]any{"action": "search_name"}, ReqAuto},
		{"File", map[string]any{"action": "search_content"}, ReqAuto},
		{"File", map[string]any{"action": "frobnicate"}, ReqAuto},
		{"File", map[string]any{"action": "write"}, ReqSuggest},
		{"File", map[string]any{"action": "edit"}, ReqSuggest},
		{"File", map[string]any{"action": "patch"}, ReqSuggest},
		// MCP: read helpers Auto, every other pool tool Suggest.
		{"list_mcp_resources", nil, ReqAuto},
		{"list_mcp_resource_templates", nil, ReqAuto},
		{"mcp_read_resource", nil, ReqAuto},
		{"read_mcp_resource", nil, ReqAuto},
		{"mcp_get_prompt", nil, ReqAuto},
		{"mcp_github_create_issue", nil, ReqSuggest},
		{"mcp_filesystem_write", nil, ReqSuggest},
		// rlm: eval Required, resolved actions Auto, unresolvable Required.
		{"rlm", map[string]any{"action": "eval"}, ReqRequired},
		{"rlm", map[string]any{"action": "open"}, ReqAuto},
		{"rlm", map[string]any{"action": "session_objects"}, ReqAuto},
		{"rlm", map[string]any{"action": "close"}, ReqAuto},
		{"rlm", map[string]any{}, ReqRequired},
		{"rlm", map[string]any{"action": "bogus"}, ReqRequired},
		// agent.
		{"agent", map[string]any{"action": "status"}, ReqAuto},
		{"agent", map[string]any{"action": "peek"}, ReqAuto},
		{"agent", map[string]any{"action": "wait"}, ReqAuto},
		{"agent", map[string]any{"action": "start", "role": "explore"}, ReqAuto},
		{"agent", map[string]any{"action": "start", "role": "Reviewer"}, ReqAuto},
		{"agent", map[string]any{"action": "start", "role": "worker"}, ReqRequired},
		{"agent", map[string]any{"action": "start"}, ReqRequired},
		{"agent", map[string]any{"action": "cancel"}, ReqRequired},
		// Other rows.
		{"read", nil, ReqAuto},
		{"Git", map[string]any{"action": "diff"}, ReqAuto},
		{"Web", map[string]any{"action": "fetch"}, ReqAuto},
		{"todo_write", nil, ReqAuto},
		{"write", nil, ReqSuggest},
		{"apply_patch", nil, ReqSuggest},
		{"code_execution", nil, ReqSuggest},
		{"js_execution", nil, ReqSuggest},
		{"task_shell_start", nil, ReqRequired},
		{"run_tests", nil, ReqRequired},
		{"Run", map[string]any{"action": "tests"}, ReqRequired},
		{"start_mcp_server", nil, ReqRequired},
		{"terminal/create", nil, ReqRequired},
		{"tasks", map[string]any{"action": "list"}, ReqAuto},
		{"tasks", map[string]any{"action": "create"}, ReqRequired},
		{"automation", map[string]any{"action": "read"}, ReqAuto},
		{"automation", map[string]any{"action": "delete"}, ReqRequired},
		{"github", map[string]any{"action": "pr_context"}, ReqAuto},
		{"github", map[string]any{"action": "comment"}, ReqRequired},
		{"harness", map[string]any{"action": "overview"}, ReqAuto},
		{"harness", map[string]any{"action": "run"}, ReqRequired},
		{"workflow", map[string]any{"action": "status"}, ReqAuto},
		{"workflow", map[string]any{"action": "cancel"}, ReqRequired},
		{"send_later", map[string]any{"action": "list"}, ReqAuto},
		{"send_later", map[string]any{"action": "schedule"}, ReqRequired},
	}
	for _, r := range rows {
		in := r.input
		if in == nil {
			in = map[string]any{}
		}
		if got := requirement(r.name, tool.Semantic(r.name, in), in, nil); got != r.want {
			t.Errorf("%s %v: %s, want %s", r.name, r.input, got, r.want)
		}
	}
}
