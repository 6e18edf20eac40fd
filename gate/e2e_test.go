package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

const (
	askHook     = `{"decision":"ask"}`
	approvalTxt = "Tool execution requires approval"
	publishHold = "Built-in safety gate requires approval: publish-like action requires durable review"
	bgHold      = "Built-in safety gate requires approval: destructive background/headless action requires durable review"
)

type e2eRow struct {
	name    string
	files   files
	posture session.Posture
	mode    session.Mode
	tool    string
	input   map[string]any
	allow   []string // non-nil: an allow list
	deny    []string
	script  map[string]hooks.Result // hook command → result; nil = no runner
	session Sessions

	decision Verdict
	layer    Layer
	reason   string // exact when it does not end in "…"; a prefix when it does
	contains string
	forced   *bool
}

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

// docs/codewhale/pipeline.md §10.3, every row. The CLI has no approval card: an undecided
// call ends as ask at layer 8; Never, Auto-Review and Full Access turn holds
// into denies.
func TestEndToEndVectors(t *testing.T) {
	git := files{git: true}
	typedAsk := files{git: true, permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\n"}
	typedDeny := files{git: true, permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"deny\"\n"}
	typedAllowBlockRule := files{git: true,
		permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"allow\"\n",
		config:      "[[auto_review.block]]\nid = \"no-bash\"\ntool = \"bash\"\nreason = \"shell requires maintainer review\"\n"}
	rmHome := files{git: true, permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf ~/\"\ncommand_exact = true\naction = \"allow\"\n"}
	changelog := files{git: true, law: lawJSON,
		permissions: "[[rules]]\ntool = \"write_file\"\npath = \"CHANGELOG.md\"\nworkspace = \"<ws>\"\naction = \"allow\"\n"}
	strictHook := files{git: true, config: hookConfig("gate", true)}
	lenientHook := files{git: true, config: hookConfig("asker", false)}
	wsWrite := files{git: true, config: "sandbox_mode = \"workspace-write\"\n"}
	escalate := map[string]any{"command": "touch x", "sandbox_permissions": "danger-full-access", "justification": "touch outside the tree"}
	changelogWrite := map[string]any{"action": "write", "path": "CHANGELOG.md", "content": "notes"}
	lawAsk := `Repo law holds this write: "Release notes need human review" protects CHANGELOG.md (matched CHANGELOG.md, .codewhale/constitution.json)`
	lawBlock := `Repo law holds this write: "The wire format is frozen" protects crates/protocol/** (matched crates/protocol/x.rs, .codewhale/constitution.json)`

	rows := []e2eRow{
		{name: "ask read", files: git, tool: "read", input: map[string]any{"path": "README.md"},
			decision: Allow, layer: LayerBaseline, reason: "No approval required."},
		{name: "ask write carve-out", files: git, tool: "write", input: map[string]any{"path": "src/x.rs", "content": "x"},
			decision: Allow, layer: LayerBaseline, reason: "No approval required."},
		{name: "ask write .env", files: git, tool: "write", input: map[string]any{"path": ".env", "content": "x"},
			decision: Ask, layer: LayerApproval, reason: approvalTxt, forced: no},
		{name: "ask write without .git", files: files{}, tool: "write", input: map[string]any{"path": "src/x.rs", "content": "x"},
			decision: Ask, layer: LayerApproval, reason: approvalTxt, forced: no},
		{name: "ask write, hook asks", files: lenientHook, tool: "write", input: map[string]any{"path": "src/x.rs", "content": "x"},
			script:   map[string]hooks.Result{"asker": exit(0, askHook)},
			decision: Ask, layer: LayerApproval, reason: "A ToolCallBefore hook requires explicit approval for this call.", forced: no},
		{name: "ask write, hook asks, session grant for write", files: lenientHook, tool: "write", input: map[string]any{"path": "src/x.rs", "content": "x"},
			script: map[string]hooks.Result{"asker": exit(0, askHook)}, session: approvedFor("write"),
			decision: Allow, layer: LayerApproval, reason: "Approved."},
		{name: "auto-review, hook asks (read)", files: lenientHook, posture: session.AutoReview, tool: "read", input: map[string]any{"path": "a"},
			script:   map[string]hooks.Result{"asker": exit(0, askHook)},
			decision: Deny, layer: LayerApproval, reason: "Auto-Review posture never opens an approval card; the held call is denied: …"},
		{name: "auto-review, hook asks (write)", files: lenientHook, posture: session.AutoReview, tool: "write", input: map[string]any{"path": "src/x.rs", "content": "x"},
			script:   map[string]hooks.Result{"asker": exit(0, askHook)},
			decision: Deny, layer: LayerApproval, reason: "Auto-Review posture never opens an approval card; the held call is denied: …"},
		{name: "ask bash cargo test", files: git, tool: "bash", input: map[string]any{"command": "cargo test"},
			decision: Ask, layer: LayerApproval, reason: approvalTxt, forced: no},
		{name: "ask bash ls", files: git, tool: "bash", input: map[string]any{"command": "ls"},
			decision: Allow, layer: LayerBaseline},
		{name: "never bash cargo test", files: git, posture: session.Never, tool: "bash", input: map[string]any{"command": "cargo test"},
			decision: Deny, layer: LayerApproval, reason: "Blocked tool 'bash' (approval_mode=never)"},
		{name: "never bash cargo test, session-approved", files: git, posture: session.Never, tool: "bash", input: map[string]any{"command": "cargo test"},
			session: approvedFor("shell:cargo test"), decision: Allow, layer: LayerApproval},
		{name: "never read", files: git, posture: session.Never, tool: "read", input: map[string]any{"path": "a"},
			decision: Allow},
		{name: "full access bash cargo test", files: git, posture: session.FullAccess, tool: "bash", input: map[string]any{"command": "cargo test"},
			decision: Allow},
		{name: "full access git push", files: git, posture: session.FullAccess, tool: "bash", input: map[string]any{"command": "git push origin main"},
			decision: Allow},
		{name: "ask git push: forced floor card", files: git, tool: "bash", input: map[string]any{"command": "git push origin main"},
			decision: Ask, layer: LayerApproval, reason: publishHold, forced: yes},
		{name: "auto-review git push: floor blocks", files: git, posture: session.AutoReview, tool: "bash", input: map[string]any{"command": "git push origin main"},
			decision: Deny, layer: LayerAutoReview, reason: publishHold},
		{name: "full access rm -rf ~/ background with typed allow", files: rmHome, posture: session.FullAccess, tool: "bash",
			input:    map[string]any{"command": "rm -rf ~/", "background": true},
			decision: Deny, layer: LayerAutoReview, reason: bgHold},
		{name: "full access rlm eval", files: git, posture: session.FullAccess, tool: "rlm", input: map[string]any{"action": "eval", "code": "1+1"},
			decision: Allow},
		{name: "full access start_mcp_server", files: git, posture: session.FullAccess, tool: "start_mcp_server", input: map[string]any{"name": "x"},
			decision: Allow},
		{name: "ask start_mcp_server, session grant ignored", files: git, tool: "start_mcp_server", input: map[string]any{"name": "x"},
			session:  approvedFor("start_mcp_server", ExactKey("start_mcp_server", map[string]any{"name": "x"})),
			decision: Ask, layer: LayerApproval, reason: approvalTxt, forced: yes},
		{name: "full access File write CHANGELOG.md: repo law", files: changelog, posture: session.FullAccess, tool: "File", input: changelogWrite,
			decision: Deny, layer: LayerRepoLaw, reason: "Repository law blocked tool 'File' in Full Access: " + lawAsk + ". Switch to Ask to review this protected change."},
		{name: "ask File write CHANGELOG.md: forced repo-law card", files: changelog, tool: "File", input: changelogWrite,
			decision: Ask, layer: LayerApproval, reason: lawAsk, forced: yes},
		{name: "plan write", files: git, mode: session.Plan, tool: "write", input: map[string]any{"path": "src/x.rs"},
			decision: Deny, layer: LayerBaseline, reason: "Tool 'write' is not available in Plan mode — switch to Work mode to make changes."},
		{name: "plan bash", files: git, mode: session.Plan, tool: "bash", input: map[string]any{"command": "ls"},
			decision: Deny, layer: LayerAdmission, reason: "Tool 'bash' is not available in Plan mode — switch to Work mode to run commands."},
		{name: "ask sandbox escalation: forced card", files: wsWrite, tool: "bash", input: escalate,
			decision: Ask, layer: LayerApproval, forced: yes,
			reason: "Sandbox escalation to 'danger-full-access' for this exact call: touch outside the tree"},
		// `touch x` is not routine: the sidecar's layer 6 already denies
		// (ConsultReviewer without a guardian), so also check a routine command,
		// which reaches the escalation step and its exact refusal.
		{name: "auto-review sandbox escalation: denied", files: wsWrite, posture: session.AutoReview, tool: "bash", input: escalate,
			decision: Deny},
		{name: "auto-review sandbox escalation of a routine command: denied at layer 9", files: wsWrite, posture: session.AutoReview, tool: "bash",
			input:    map[string]any{"command": "cargo test", "sandbox_permissions": "danger-full-access", "justification": "j"},
			decision: Deny, layer: LayerSandbox, reason: "Sandbox escalation requires a one-shot user approval, but the current Auto-Review posture cannot provide it."},
		{name: "strict hook times out", files: strictHook, tool: "read", input: map[string]any{"path": "a"},
			script:   map[string]hooks.Result{"gate": {Err: "Hook timed out after 30s", TimedOut: true}},
			decision: Deny, layer: LayerHooks, reason: "ToolCallBefore hook returned no verdict for tool 'read' and `continue_on_error = false` is configured: gate: …"},
		{name: "ask exec_shell typed ask: forced card", files: typedAsk, tool: "exec_shell", input: map[string]any{"command": "cargo test"},
			decision: Ask, layer: LayerApproval, forced: yes},
		// §4.3 "Later layers may only clear ordinary approval when not forced":
		// a typed ask forces the card, which an auto-review allow cannot lift.
		{name: "auto-review typed ask on a benign command: forced hold denied", posture: session.AutoReview, tool: "bash", input: map[string]any{"command": "git status"},
			files:    files{git: true, permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\n"},
			decision: Deny, layer: LayerApproval, reason: "Auto-Review posture never opens an approval card; the held call is denied: …"},
		{name: "ask typed ask on an Auto command: forced card", tool: "bash", input: map[string]any{"command": "git status"},
			files:    files{git: true, permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\n"},
			decision: Ask, layer: LayerApproval, forced: yes},
		{name: "full access exec_shell typed ask: runs", files: typedAsk, posture: session.FullAccess, tool: "exec_shell", input: map[string]any{"command": "cargo test"},
			decision: Allow},
		{name: "ask bash with typed allow + auto_review block tool=bash", files: typedAllowBlockRule, tool: "bash", input: map[string]any{"command": "cargo test"},
			decision: Deny, layer: LayerAutoReview, reason: "Auto-review policy blocked tool 'bash': shell requires maintainer review"},
	}
	// "any" rows, in every posture.
	for _, p := range []session.Posture{session.Ask, session.AutoReview, session.FullAccess, session.Never} {
		rows = append(rows,
			e2eRow{name: "any: write crates/protocol/x (repo-law block), " + p.String(), files: files{git: true, law: lawJSON}, posture: p,
				tool: "write", input: map[string]any{"path": "crates/protocol/x.rs", "content": "x"},
				decision: Deny, layer: LayerRepoLaw, reason: lawBlock},
			e2eRow{name: "any: tool on both lists, " + p.String(), files: git, posture: p, tool: "read", input: map[string]any{"path": "a"},
				allow: []string{"read"}, deny: []string{"read"},
				decision: Deny, layer: LayerAdmission, reason: "Tool 'read' is disallowed for this command (disallowedTools)."},
			e2eRow{name: "any: exec_shell typed deny, " + p.String(), files: typedDeny, posture: p, tool: "exec_shell", input: map[string]any{"command": "cargo test"},
				decision: Deny, layer: LayerPermissions, contains: "cargo test"},
		)
	}

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			fx := load(t, r.files).noFatal(t)
			req := withPosture(fx.call(r.tool, r.input), r.posture)
			req.Mode = r.mode
			req.DisallowedTools = r.deny
			if r.allow != nil {
				req = req.WithAllowList(r.allow)
			}
			deps := Deps{Sessions: r.session}
			var runner *fakeRunner
			if r.script != nil {
				runner = &fakeRunner{script: r.script}
				deps.Hooks = runner
			}
			d := fx.decide(t, req, deps)
			checkTrace(t, d)
			if runner != nil && len(runner.calls) == 0 {
				t.Errorf("the hook did not run")
			}
			if d.Decision != r.decision {
				t.Fatalf("decision %s at layer %d (%q), want %s", d.Decision, d.Layer, d.Reason, r.decision)
			}
			if r.layer != 0 && d.Layer != r.layer {
				t.Errorf("layer %d (%s), want %d", d.Layer, d.Reason, r.layer)
			}
			if prefix, ok := strings.CutSuffix(r.reason, "…"); ok {
				if !strings.HasPrefix(d.Reason, prefix) {
					t.Errorf("reason %q, want prefix %q", d.Reason, prefix)
				}
			} else if r.reason != "" && d.Reason != r.reason {
				t.Errorf("reason %q, want %q", d.Reason, r.reason)
			}
			if r.contains != "" && !strings.Contains(d.Reason, r.contains) {
				t.Errorf("reason %q does not contain %q", d.Reason, r.contains)
			}
			if d.Decision == Ask {
				if d.Prompt == nil || d.Prompt.Description != d.Reason {
					t.Fatalf("ask without a matching prompt: %+v", d.Prompt)
				}
				if r.forced != nil && d.Prompt.Forced != *r.forced {
					t.Errorf("forced %v, want %v", d.Prompt.Forced, *r.forced)
				}
			} else if d.Prompt != nil {
				t.Errorf("prompt on a %s", d.Decision)
			}
			if d.Decision == Deny && r.layer == LayerRepoLaw && (d.Rule == nil || *d.Rule == "") {
				t.Errorf("repo-law deny without the invariant as rule")
			}
		})
	}
}

// docs/codewhale/pipeline.md §6.6 full_access_permission_allow_cannot_bypass_background_catastrophic_floor.
func TestFullAccessPermissionAllowCannotBypassBackgroundCatastrophicFloor(t *testing.T) {
	fx := load(t, files{git: true, permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = 'echo \"rm -rf /\" > \"<ws>/must-survive\"'\ncommand_exact = true\naction = \"allow\"\n"}).noFatal(t)
	cmd := `echo "rm -rf /" > "` + fx.ws + `/must-survive"`
	in := map[string]any{"action": "run", "command": cmd}

	// Precondition (§5): the typed allow decides the foreground call in Full Access.
	d := fx.decide(t, withPosture(fx.call("Bash", in), session.FullAccess), Deps{})
	if d.Decision != Allow || d.Layer != LayerPermissions {
		t.Fatalf("precondition: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}

	in = map[string]any{"action": "run", "command": cmd, "background": true}
	d = fx.decide(t, withPosture(fx.call("Bash", in), session.FullAccess), Deps{})
	checkTrace(t, d)
	if d.Decision != Deny || d.Layer != LayerAutoReview || d.Prompt != nil {
		t.Fatalf("%s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
	if !strings.Contains(d.Reason, "Built-in safety gate") || !strings.Contains(d.Reason, "destructive background/headless") {
		t.Errorf("reason %q", d.Reason)
	}
	if e, _ := traceEffect(d, LayerPermissions); e != EffectAllow {
		t.Errorf("layer 5 effect %q, want the typed allow", e)
	}
	if _, err := os.Stat(filepath.Join(fx.ws, "must-survive")); !os.IsNotExist(err) {
		t.Errorf("must-survive touched: %v", err)
	}
}

// docs/codewhale/pipeline.md §7.3 full_access_permission_allow_cannot_bypass_repo_law.
func TestFullAccessPermissionAllowCannotBypassRepoLaw(t *testing.T) {
	fx := load(t, files{git: true,
		law:         `{"protected_invariants":[{"text":"Release notes need human review","paths":["CHANGELOG.md"]}]}`,
		permissions: "[[rules]]\ntool = \"write_file\"\npath = \"CHANGELOG.md\"\nworkspace = \"<ws>\"\naction = \"allow\"\n",
	}).noFatal(t)
	in := map[string]any{"action": "write", "path": "CHANGELOG.md", "content": "notes"}

	// Precondition (§5): without the law, the typed allow decides in Full Access.
	noLaw := load(t, files{git: true, permissions: "[[rules]]\ntool = \"write_file\"\npath = \"CHANGELOG.md\"\nworkspace = \"<ws>\"\naction = \"allow\"\n"}).noFatal(t)
	if d := noLaw.decide(t, withPosture(noLaw.call("File", in), session.FullAccess), Deps{}); d.Decision != Allow || d.Layer != LayerPermissions {
		t.Fatalf("precondition: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}

	d := fx.decide(t, withPosture(fx.call("File", in), session.FullAccess), Deps{})
	checkTrace(t, d)
	if d.Decision != Deny || d.Layer != LayerRepoLaw || d.Prompt != nil {
		t.Fatalf("%s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
	const want = `Repository law blocked tool 'File' in Full Access: Repo law holds this write: "Release notes need human review"`
	if !strings.HasPrefix(d.Reason, want) {
		t.Errorf("reason %q, want prefix %q", d.Reason, want)
	}
	if d.Rule == nil || *d.Rule != "Release notes need human review" {
		t.Errorf("rule %v", d.Rule)
	}
	if _, err := os.Stat(filepath.Join(fx.ws, "CHANGELOG.md")); !os.IsNotExist(err) {
		t.Errorf("CHANGELOG.md created: %v", err)
	}
}

// A hook's updatedInput replaces what every later layer sees (§3.1).
func TestHookRewriteReachesLaterLayers(t *testing.T) {
	fx := load(t, files{git: true, config: hookConfig("rewriter", false)}).noFatal(t)
	runner := &fakeRunner{script: map[string]hooks.Result{"rewriter": exit(0, `{"updatedInput":{"command":"git push origin main"}}`)}}
	d := fx.decide(t, fx.call("bash", map[string]any{"command": "ls"}), Deps{Hooks: runner})
	checkTrace(t, d)
	if d.Decision != Ask || d.Reason != publishHold || d.Input["command"] != "git push origin main" {
		t.Errorf("%s %q %v", d.Decision, d.Reason, d.Input)
	}
	if e, _ := traceEffect(d, LayerHooks); e != EffectRewrite {
		t.Errorf("layer 3 effect %q", e)
	}
	// A hook deny stops at layer 3.
	runner = &fakeRunner{script: map[string]hooks.Result{"rewriter": exit(2, `{"reason":"nope"}`)}}
	d = fx.decide(t, fx.call("bash", map[string]any{"command": "ls"}), Deps{Hooks: runner})
	if d.Decision != Deny || d.Layer != LayerHooks || d.Reason != "ToolCallBefore hook denied tool 'bash': nope" {
		t.Errorf("hook deny: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}
