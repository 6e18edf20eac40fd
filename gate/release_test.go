package gate

import (
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

var releases = []string{"0.9.10", "0.10.0", "0.10.1"}

func changedBy(d Decision, c release.Change) bool {
	return slices.Contains(d.Changes, c.String())
}

// docs/codewhale/releases/0.10.0.md B.0: from 0.10.0 yolo is Agent with the
// Full Access posture, so allow_shell = false keeps the shell off (0.9.10's
// Yolo mode turned it on); a locked posture refuses yolo in both.
func TestYoloModePerRelease(t *testing.T) {
	for _, v := range releases {
		t.Run(v, func(t *testing.T) {
			newer := release.MustOf(v).Has(release.ThreeModes)
			off := load(t, files{config: "allow_shell = false\n", release: v}).noFatal(t)
			req := off.call("bash", map[string]any{"command": "ls"})
			req.Mode = session.Yolo
			d := off.decide(t, req, Deps{})
			checkTrace(t, d)
			shellOff := d.Layer == LayerAdmission && strings.Contains(d.Reason, "shell is disabled")
			wantMode := map[bool]string{false: "yolo", true: "agent"}[newer]
			if shellOff != newer || d.Mode != wantMode || d.Posture != "full-access" || changedBy(d, release.ThreeModes) != newer {
				t.Errorf("yolo + allow_shell=false: %s layer %d mode %s posture %s changes %v (%q)", d.Decision, d.Layer, d.Mode, d.Posture, d.Changes, d.Reason)
			}

			unset := load(t, files{release: v}).noFatal(t)
			req = unset.call("write_file", map[string]any{"path": "a.txt", "content": "x"})
			req.Mode = session.Yolo
			if d := unset.decide(t, req, Deps{}); d.Decision != Allow || d.Mode != wantMode || d.Sandbox.Type != "danger-full-access" {
				t.Errorf("yolo write: %s mode %s sandbox %+v", d.Decision, d.Mode, d.Sandbox)
			}

			locked := load(t, files{config: "approval_policy = \"on-request\"\n", release: v}).noFatal(t)
			req = locked.call("write_file", map[string]any{"path": "/etc/x", "content": "x"})
			req.Mode = session.Yolo
			if d := locked.decide(t, req, Deps{}); d.Decision != Ask || d.Mode != "agent" || d.Posture != "ask" {
				t.Errorf("yolo under a lock: %s mode %s posture %s", d.Decision, d.Mode, d.Posture)
			}
		})
	}
}

// Over LSP a request asking for yolo is refused at every release: under
// 0.10.x it would mean the Full Access posture, which loosens.
func TestYoloRequestRefusedPerRelease(t *testing.T) {
	for _, v := range releases {
		fx := load(t, files{release: v}).noFatal(t)
		req := fx.call("read_file", map[string]any{"path": "a"})
		req.Mode = session.Yolo
		d := fx.decide(t, req, Deps{RequestMayOnlyTighten: true})
		if d.Decision != Deny || d.Layer != LayerPosture || !strings.Contains(d.Reason, "mode yolo") {
			t.Errorf("%s: %s layer %d %q", v, d.Decision, d.Layer, d.Reason)
		}
	}
}

// docs/codewhale/releases/0.10.0.md B.2 example table (0.9.10 and 0.10.0
// columns), with D.10 of 0.10.1: the deny list becomes input-aware.
func TestInputAwareDenyListPerRelease(t *testing.T) {
	type want struct{ old, v0100, v0101 string } // "" = passes the list gate, else the reason's text
	const listed = "(disallowedTools)"
	rows := []struct {
		deny  []string
		tool  string
		input map[string]any
		want  want
	}{
		{[]string{"Bash"}, "task_shell_start", map[string]any{"command": "make"}, want{"", listed, listed}},
		{[]string{"bash"}, "code_execution", map[string]any{"code": "print(1)"}, want{"", listed, listed}},
		{[]string{"git_status"}, "Git", map[string]any{"action": "status"}, want{"", listed, listed}},
		{[]string{"exec_shell_wait"}, "bash", map[string]any{"action": "wait", "task_id": "t1"}, want{"", listed, listed}},
		{[]string{"write_file"}, "File", map[string]any{"action": "read", "path": "a"}, want{listed, listed, listed}},
		{[]string{"fetch_url"}, "rlm", map[string]any{"action": "open", "url": "https://x"}, want{"", listed, listed}},
		{[]string{"fetch_url"}, "rlm", map[string]any{"action": "open", "url": "  "}, want{"", "", ""}},
		{[]string{"mcp_acme_*"}, "mcp_acme_get_profile", map[string]any{}, want{listed, "Unknown MCP tool name: mcp_acme_get_profile", "Unknown MCP tool name: mcp_acme_get_profile"}},
		{[]string{"read_mcp_resource"}, "mcp_read_resource", map[string]any{}, want{"", "Unknown MCP tool name: mcp_read_resource", "Unknown MCP tool name: mcp_read_resource"}},
		{[]string{"Bash"}, "start_mcp_server", map[string]any{}, want{"", "", listed}},
		{[]string{"Bash"}, "Run", map[string]any{"action": "tests"}, want{"", listed, listed}},
		// The widening is the deny list's only: allowing Bash allows no
		// other raw-shell tool.
		{nil, "read_file", map[string]any{"path": "a"}, want{"", "", ""}},
	}
	for _, v := range releases {
		r := release.MustOf(v)
		for _, row := range rows {
			req := Request{Tool: row.tool, Input: row.input, Workspace: "/ws", DisallowedTools: row.deny}
			reason, _, by := admission(req, true, false, r)
			w := map[string]string{"0.9.10": row.want.old, "0.10.0": row.want.v0100, "0.10.1": row.want.v0101}[v]
			denied := reason != "" && (strings.Contains(reason, listed) || strings.HasPrefix(reason, "Unknown MCP tool name"))
			if (w != "") != denied || (w != "" && !strings.Contains(reason, w)) {
				t.Errorf("%s: deny %v, %s %v: %q, want %q", v, row.deny, row.tool, row.input, reason, w)
			}
			if differs := w != row.want.old; differs != (by != release.Change{}) {
				t.Errorf("%s: deny %v, %s: change %v", v, row.deny, row.tool, by)
			}
		}
	}
	// The alias admits through the allow list too, from 0.10.0.
	aliasReq := Request{Tool: "mcp_read_resource", Input: map[string]any{}, Workspace: "/ws"}.WithAllowList([]string{"read_mcp_resource"})
	for _, v := range releases {
		r := release.MustOf(v)
		reason, _, by := admission(aliasReq, true, false, r)
		newer := r.Has(release.InputAwareDenyList)
		if (reason == "") != newer || (by == release.InputAwareDenyList) != newer {
			t.Errorf("%s: allow [read_mcp_resource], mcp_read_resource: %q %v", v, reason, by)
		}
	}
	// Allowing Bash does not allow task_shell_start.
	req := Request{Tool: "task_shell_start", Input: map[string]any{"command": "make"}, Workspace: "/ws"}.WithAllowList([]string{"Bash"})
	for _, v := range releases {
		r := release.MustOf(v)
		if reason, _, _ := admission(req, true, false, r); !strings.Contains(reason, "(allowedTools)") {
			t.Errorf("%s: allow [Bash] admitted task_shell_start: %q", v, reason)
		}
	}
}

// B.2 item 3: from 0.10.0 a hook that rewrites the input into an action
// the deny list refuses is denied after the hooks.
func TestDenyListRecheckedAfterHooks(t *testing.T) {
	for _, v := range releases {
		t.Run(v, func(t *testing.T) {
			fx := load(t, files{config: hookConfig("rewriter", false), release: v}).noFatal(t)
			runner := &fakeRunner{script: map[string]hooks.Result{"rewriter": exit(0, `{"updatedInput":{"action":"wait","task_id":"t1"}}`)}}
			req := fx.call("bash", map[string]any{"command": "ls"})
			req.DisallowedTools = []string{"exec_shell_wait"}
			d := fx.decide(t, req, Deps{Hooks: runner})
			checkTrace(t, d)
			newer := release.MustOf(v).Has(release.InputAwareDenyList)
			refused := d.Decision == Deny && d.Layer == LayerHooks && d.Reason == "Tool 'bash' or its execution dependency is in the disallowed-tools list"
			if refused != newer || changedBy(d, release.InputAwareDenyList) != newer {
				t.Errorf("%s layer %d %q changes %v", d.Decision, d.Layer, d.Reason, d.Changes)
			}
			if e, _ := traceEffect(d, LayerHooks); newer && e != EffectDeny {
				t.Errorf("layer 3 effect %q", e)
			}
		})
	}
}

// docs/codewhale/releases/0.10.0.md B.4 and Part D.12: execute_tools exists
// in Code mode (off by default in 0.10.0, on in 0.10.1), requires Suggest
// and its card quotes the code's first non-blank line.
func TestExecuteToolsPerRelease(t *testing.T) {
	input := map[string]any{"code": "\n  \n  tools.read('a')\nmore()"}
	for _, tc := range []struct {
		version, config string
		want            Verdict
		desc            string
	}{
		{"0.9.10", "", Deny, ""},
		{"0.9.10", "[features]\ncode_mode = true\n", Deny, ""},
		{"0.10.0", "", Deny, ""},
		{"0.10.0", "[features]\ncode_mode = true\n", Ask, "execute_tools: tools.read('a')"},
		{"0.10.1", "", Ask, "execute_tools: tools.read('a')"},
		{"0.10.1", "[features]\ncode_mode = false\n", Deny, ""},
	} {
		fx := load(t, files{config: tc.config, release: tc.version})
		d := fx.decide(t, fx.call("execute_tools", input), Deps{})
		checkTrace(t, d)
		if d.Decision != tc.want {
			t.Errorf("%s %q: %s layer %d %q", tc.version, tc.config, d.Decision, d.Layer, d.Reason)
			continue
		}
		if tc.want == Deny && (d.Layer != LayerAdmission || !strings.Contains(d.Reason, "is not available")) {
			t.Errorf("%s %q: %s layer %d %q", tc.version, tc.config, d.Decision, d.Layer, d.Reason)
		}
		if tc.want == Ask && (d.Prompt == nil || d.Prompt.Description != tc.desc || !changedBy(d, release.BaselineWithoutYolo)) {
			t.Errorf("%s %q: prompt %+v changes %v", tc.version, tc.config, d.Prompt, d.Changes)
		}
		if tc.want == Ask && changedBy(d, release.CodeModeDefaultOn) != (tc.config == "") {
			t.Errorf("%s %q: changes %v", tc.version, tc.config, d.Changes)
		}
	}
	// Hidden in Plan mode.
	fx := load(t, files{release: "0.10.1"})
	req := fx.call("execute_tools", input)
	req.Mode = session.Plan
	if d := fx.decide(t, req, Deps{}); d.Decision != Deny || d.Layer != LayerAdmission || !strings.Contains(d.Reason, "Plan mode") {
		t.Errorf("plan: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}

// docs/codewhale/releases/0.10.0.md B.9.1 table: from 0.10.0 workspace-write
// and external sandboxes have no network unless sandbox_network_access.
func TestSandboxNetworkPerRelease(t *testing.T) {
	type want struct {
		typ        string
		old, v0100 *bool // network access at 0.9.10 and at 0.10.x (nil: none reported)
	}
	on, off := boolPtr(true), boolPtr(false)
	rows := []struct {
		name    string
		mode    session.Mode
		posture *session.Posture
		config  string
		want    want
	}{
		{"agent/ask, unset", session.Agent, nil, "", want{"workspace-write", on, off}},
		{"agent/ask, network true", session.Agent, nil, "sandbox_network_access = true\n", want{"workspace-write", on, on}},
		{"agent/full access, workspace-write", session.Agent, postureP(session.FullAccess), "sandbox_mode = \"workspace-write\"\n", want{"workspace-write", on, off}},
		{"agent/full access, external", session.Agent, postureP(session.FullAccess), "sandbox_mode = \"external-sandbox\"\n", want{"external-sandbox", on, off}},
		{"plan, network true", session.Plan, postureP(session.FullAccess), "sandbox_mode = \"danger-full-access\"\nsandbox_network_access = true\n", want{"read-only", nil, nil}},
		{"yolo", session.Yolo, nil, "", want{"danger-full-access", nil, nil}},
	}
	for _, v := range releases {
		newer := release.MustOf(v).Has(release.SandboxNetworkOff)
		for _, row := range rows {
			fx := load(t, files{config: row.config, release: v}).noFatal(t)
			req := fx.call("read_file", map[string]any{"path": "a"})
			req.Mode, req.Posture = row.mode, row.posture
			d := fx.decide(t, req, Deps{})
			wantNet := row.want.old
			if newer {
				wantNet = row.want.v0100
			}
			gotNet := d.Sandbox.NetworkAccess
			if d.Sandbox.Type != row.want.typ || (gotNet == nil) != (wantNet == nil) || (gotNet != nil && *gotNet != *wantNet) {
				t.Errorf("%s %s: %+v (network %v), want %s network %v", v, row.name, d.Sandbox, deref(gotNet), row.want.typ, deref(wantNet))
			}
			if changed := changedBy(d, release.SandboxNetworkOff); changed != (newer && wantNet != nil && !*wantNet) {
				t.Errorf("%s %s: changes %v", v, row.name, d.Changes)
			}
			if fx.snap.Release.Has(release.ReadDenyList) {
				shells := "shells through the OS sandbox"
				if d.Sandbox.Type == "danger-full-access" {
					shells = "shells run unsandboxed"
				}
				if e := d.Trace[len(d.Trace)-1]; e.Layer != LayerSandbox || !strings.Contains(e.Detail, "read deny-list") || !strings.Contains(e.Detail, shells) {
					t.Errorf("%s %s: the sandbox line should name the read deny-list and say %q: %+v", v, row.name, shells, e)
				}
			}
		}
	}
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// docs/codewhale/releases/0.10.0.md B.9.2: from 0.10.0 in-process reads of
// credential stores and .env files are refused in every posture, at the
// sandbox, naming the path as the call spelled it; 0.10.1 adds
// pandoc_convert and image_ocr.
func TestReadDenyListPerRelease(t *testing.T) {
	rows := []struct {
		tool    string
		input   map[string]any
		posture session.Posture
		mode    session.Mode
		since   release.Change // zero: never refused
	}{
		{"read_file", map[string]any{"path": "~/.ssh/id_rsa"}, session.FullAccess, session.Agent, release.ReadDenyList},
		{"read", map[string]any{"path": "~/.aws/credentials"}, session.Ask, session.Plan, release.ReadDenyList},
		{"File", map[string]any{"action": "read", "path": ".env"}, session.AutoReview, session.Agent, release.ReadDenyList},
		{"File", map[string]any{"action": "list", "path": "~/.gnupg"}, session.Never, session.Agent, release.ReadDenyList},
		{"File", map[string]any{"action": "search_name", "path": "~/.kube"}, session.Ask, session.Agent, release.ReadDenyList},
		{"read_media", map[string]any{"path": "~/.netrc"}, session.Ask, session.Agent, release.ReadDenyList},
		{"list_dir", map[string]any{}, session.Ask, session.Agent, release.Change{}},
		{"read_file", map[string]any{"path": ".env.example"}, session.Ask, session.Agent, release.Change{}},
		{"read_file", map[string]any{"path": "src/main.go"}, session.Ask, session.Agent, release.Change{}},
		{"pandoc_convert", map[string]any{"input": ".env", "output": "out.md"}, session.FullAccess, session.Agent, release.ReadDenyListMoreTools},
		{"image_ocr", map[string]any{"path": "~/.ssh/shot.png"}, session.Ask, session.Agent, release.ReadDenyListMoreTools},
		// Writes are not reads.
		{"write_file", map[string]any{"path": ".env", "content": "x"}, session.FullAccess, session.Agent, release.Change{}},
	}
	for _, v := range releases {
		fx := load(t, files{release: v}).noFatal(t)
		for _, row := range rows {
			req := withPosture(fx.call(row.tool, row.input), row.posture)
			req.Mode = row.mode
			d := fx.decide(t, req, Deps{})
			checkTrace(t, d)
			want := row.since != (release.Change{}) && release.MustOf(v).Has(row.since)
			refused := d.Decision == Deny && d.Layer == LayerSandbox && strings.Contains(d.Reason, "read deny-list")
			if refused != want || changedBy(d, row.since) != want {
				t.Errorf("%s %s %v (%s): %s layer %d %q changes %v", v, row.tool, row.input, row.posture, d.Decision, d.Layer, d.Reason, d.Changes)
			}
			if want {
				path := row.input["path"]
				if path == nil {
					path = row.input["input"]
				}
				if !strings.Contains(d.Reason, "'"+path.(string)+"'") {
					t.Errorf("%s: the reason does not name %v as spelled: %q", v, path, d.Reason)
				}
			}
		}
	}
}

// A shell call that will run outside Codewhale's OS sandbox (another
// agent's, Request.OutsideSandbox) meets the read deny-list at layer 9 for
// the paths it names and the directory it runs in; Codewhale's own shell
// calls leave that to the sandbox, and under danger-full-access nothing
// applies it to shells.
func TestReadDenyListForShellsOutsideTheSandbox(t *testing.T) {
	rows := []struct {
		input   map[string]any
		posture session.Posture
		refused bool
	}{
		{map[string]any{"command": "cat ~/.ssh/id_rsa"}, session.Ask, true},
		{map[string]any{"command": "ls ~/.ssh/"}, session.AutoReview, true},
		{map[string]any{"command": "cat .env"}, session.Ask, true},
		{map[string]any{"command": "grep -r token $HOME/.config/gh/hosts.yml"}, session.Ask, true},
		{map[string]any{"command": "bash -c 'cat ~/.netrc'"}, session.Ask, true},
		{map[string]any{"command": "wc -l <~/.aws/credentials"}, session.Ask, true},
		{map[string]any{"command": "cat id_rsa", "cwd": "{home}/.ssh"}, session.Ask, true},
		{map[string]any{"command": "cat ~/.ssh/id_rsa"}, session.FullAccess, false},
		{map[string]any{"command": "cat .env.example"}, session.Ask, false},
		{map[string]any{"command": "git status"}, session.Ask, false},
	}
	for _, v := range releases {
		fx := load(t, files{release: v}).noFatal(t)
		for _, row := range rows {
			input := map[string]any{}
			for k, val := range row.input {
				input[k] = strings.Replace(val.(string), "{home}", fx.home, 1)
			}
			req := withPosture(fx.call("exec_shell", input), row.posture)
			inside := fx.decide(t, req, Deps{})
			req.OutsideSandbox = true
			outside := fx.decide(t, req, Deps{})
			checkTrace(t, outside)
			want := row.refused && release.MustOf(v).Has(release.ReadDenyList)
			refused := outside.Decision == Deny && outside.Layer == LayerSandbox && strings.Contains(outside.Reason, "read deny-list")
			if refused != want {
				t.Errorf("%s %v (%s) outside the sandbox: %s layer %d %q", v, row.input, row.posture, outside.Decision, outside.Layer, outside.Reason)
			}
			if inside.Layer == LayerSandbox && strings.Contains(inside.Reason, "read deny-list") {
				t.Errorf("%s %v: Codewhale's own shell call was refused by the deny-list: %q", v, row.input, inside.Reason)
			}
		}
	}
}

// The deny-list's keys (B.1): exemptions, extra paths and defaults off,
// through Decide.
func TestReadDenyListSettings(t *testing.T) {
	cfg := "sandbox_read_denylist_exempt = [\"~/.ssh\"]\nsandbox_denied_read_paths = [\"~/notes\"]\n"
	fx := load(t, files{config: cfg, release: "0.10.0"}).noFatal(t)
	for path, refused := range map[string]bool{"~/.ssh/id_rsa": false, "~/notes/plan.md": true, "~/.aws/config": true} {
		d := fx.decide(t, fx.call("read_file", map[string]any{"path": path}), Deps{})
		if got := d.Decision == Deny && d.Layer == LayerSandbox; got != refused {
			t.Errorf("%s: %s layer %d %q", path, d.Decision, d.Layer, d.Reason)
		}
	}
	fx = load(t, files{config: "sandbox_read_denylist_defaults = false\n", release: "0.10.1"}).noFatal(t)
	if d := fx.decide(t, fx.call("read_file", map[string]any{"path": "~/.ssh/id_rsa"}), Deps{}); d.Decision != Allow {
		t.Errorf("defaults off: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}

// A refusal to start that a release change caused names the change on
// every decision (D.9 requirements, loaded in gate/config).
func TestFatalChangesNamed(t *testing.T) {
	fx := load(t, files{release: "0.10.1"}).noFatal(t)
	fx.snap.Policy.Fatal = []string{"sandbox_mode (unset, so its default \"workspace-write\") is not allowed by requirements (read-only)"}
	fx.snap.Policy.FatalChanges = []release.Change{release.StricterRequirements}
	d := fx.decide(t, fx.call("read_file", map[string]any{"path": "a"}), Deps{})
	if d.Decision != Deny || d.Layer != LayerPosture || !changedBy(d, release.StricterRequirements) {
		t.Errorf("%s layer %d %q changes %v", d.Decision, d.Layer, d.Reason, d.Changes)
	}
}

// A posture locked only because 0.10.1's requirements list sandbox modes
// names the change when it refuses the request's posture.
func TestLockChangesNamed(t *testing.T) {
	fx := load(t, files{release: "0.10.1"}).noFatal(t)
	fx.snap.Policy.Locked, fx.snap.Policy.PostureSource = true, "requirements"
	fx.snap.Policy.LockChanges = []release.Change{release.StricterRequirements}
	d := fx.decide(t, withPosture(fx.call("read_file", map[string]any{"path": "a"}), session.FullAccess), Deps{})
	if d.Posture != "ask" || !changedBy(d, release.StricterRequirements) {
		t.Errorf("posture %s changes %v", d.Posture, d.Changes)
	}
	if d := fx.decide(t, fx.call("read_file", map[string]any{"path": "a"}), Deps{}); changedBy(d, release.StricterRequirements) {
		t.Errorf("a request the lock did not refuse names the change: %v", d.Changes)
	}
}
