package approvals

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/internal/filetest"
)

// Issue 26, point 1: each kind of decider is named precisely, with what
// the person reading the log needs to find it again.
func TestReceiptNamesItsDecider(t *testing.T) {
	rule := "tool=exec_shell command=git push"
	granted := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	perms := "/home/u/.codewhale/permissions.toml"
	tests := []struct {
		name   string
		caller Caller
		d      gate.Decision
		want   Decider
	}{
		{
			"a rule, with its file and line", Caller{},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Location: &gate.Location{File: perms, Line: 12}},
			Decider{Kind: DecidedByRule, Summary: "the rule '" + rule + "' at " + perms + ":12", File: perms, Line: 12, Rule: rule},
		},
		{
			"a person, where and how", Caller{},
			gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "always", Source: "prompt"}},
			Decider{Kind: DecidedByPerson, Summary: "you, in Neovim 0.12.0: approved always in this repository", Answer: "always", Where: "Neovim 0.12.0"},
		},
		{
			"a person who denied a forced hold", Caller{Hold: "hardening: a person must decide: eval runs code"},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "deny", Source: "prompt"}},
			Decider{Kind: DecidedByPerson, Summary: "you, in Neovim 0.12.0: denied", Answer: "deny", Where: "Neovim 0.12.0", Hold: "hardening: a person must decide: eval runs code"},
		},
		{
			"nobody answered", Caller{},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "timeout", Source: "prompt"}},
			Decider{Kind: DecidedByNobody, Summary: "nobody: the card in Neovim 0.12.0 timed out", Answer: "timeout", Where: "Neovim 0.12.0"},
		},
		{
			"a session grant, and when", Caller{GrantedAt: granted},
			gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "session", Source: "session-grant"}},
			Decider{Kind: DecidedBySessionGrant, Summary: `your earlier "approve for session" answer, given 2026-12-05T09:30:00Z`, GrantedAt: &granted},
		},
		{
			"the posture", Caller{},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Posture: "never", ByPosture: true},
			Decider{Kind: DecidedByPosture, Summary: "the runtime permission posture never", Posture: "never"},
		},
		{
			"a file Codewhale refuses to start on, not the posture", Caller{},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerPosture, LayerName: "posture", Posture: "ask", Location: &gate.Location{File: perms, Line: 3},
				Reason: "Codewhale refuses to start: Failed to parse permissions file. More."},
			Decider{Kind: DecidedByLayer, Summary: "layer 1 (posture): " + perms + ":3", File: perms, Line: 3},
		},
		{
			"a forced hold nobody here could answer", Caller{Hold: "Codewhale cannot see which URLs this fetch reaches"},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Reason: "needs a human"},
			Decider{Kind: DecidedByForcedHold, Summary: "a forced hold no one here could answer: Codewhale cannot see which URLs this fetch reaches", Hold: "Codewhale cannot see which URLs this fetch reaches"},
		},
		{
			"the hardening layer, with the rule it applied", Caller{},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Location: &gate.Location{File: perms, Line: 3},
				Trace: []gate.TraceEntry{{Layer: gate.LayerPermissions, Effect: gate.EffectDeny, Detail: "hardening: Codewhale 0.10.1 would not see this"}}},
			Decider{Kind: DecidedByHardening, Summary: "the hardening layer: the rule '" + rule + "' at " + perms + ":3", File: perms, Line: 3, Rule: rule},
		},
		{
			"nobody could be asked", Caller{Unasked: "no editor or approval console serves this repository, and codex cannot ask its user"},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Reason: "Codewhale's policy needs a human's approval"},
			Decider{Kind: DecidedByNobody, Summary: "nobody could be asked: no editor or approval console serves this repository, and codex cannot ask its user"},
		},
		{
			"handed to the agent's own prompt", Caller{AgentPrompt: "claude-code's own permission prompt"},
			gate.Decision{Decision: gate.Ask, Layer: gate.LayerApproval, LayerName: "approval"},
			Decider{Kind: DecidedByAgentPrompt, Summary: "handed to claude-code's own permission prompt"},
		},
		{
			"codewhale-ls refused", Caller{},
			gate.Refuse(gate.Request{}, "The workspace /x is not open in the editor. Open it first."),
			Decider{Kind: DecidedByCodewhaleLS, Summary: "codewhale-ls, without deciding: The workspace /x is not open in the editor."},
		},
		{
			"another layer, by its reason", Caller{},
			gate.Decision{Decision: gate.Deny, Layer: gate.LayerAutoReview, LayerName: "auto-review", Reason: "The safety floor blocks rm -rf /. Ask the user."},
			Decider{Kind: DecidedByLayer, Summary: "layer 6 (auto-review): The safety floor blocks rm -rf /."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ReceiptFor(time.Now(), gate.Request{Tool: "exec_shell"}, tt.caller, tt.d, "Neovim 0.12.0", false)
			got, _ := json.Marshal(r.Decider)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("decider\n got %s\nwant %s", got, want)
			}
		})
	}
}

// The receipt keeps the call's input as the card shows it, masked and
// capped with its length; with log_inputs off it keeps none.
func TestReceiptInput(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3", 12)
	long := strings.Repeat("a", 300<<10) + " " + token
	req := gate.Request{Tool: "exec_shell", Workspace: "/repo", Input: map[string]any{
		"command": "echo \u202e " + token, "timeout": 30, "description": long,
	}}
	d := gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Codewhale: "0.10.1"}
	r := ReceiptFor(time.Now(), req, Caller{Session: Session{Agent: "codex", ID: "s-9"}}, d, "", true)
	if r.Agent != "codex" || r.Session != "s-9" || r.Repo != "/repo" || r.Codewhale != "0.10.1" || r.V != ReceiptVersion || len(r.ID) != 10 {
		t.Errorf("receipt %+v", r)
	}
	if len(r.Input) != 3 || r.Input[0].Field != "command" {
		t.Fatalf("input %+v, want command first and every field", r.Input)
	}
	if got := r.Input[0]; got.Text != "echo ⟪RLO U+202E⟫ ⟪secret: github token⟫" || got.Bytes != len(req.Input["command"].(string)) || got.Cut {
		t.Errorf("command %+v", got)
	}
	desc := r.Input[1]
	if desc.Field != "description" || !desc.Cut || desc.Bytes != len(long) || len(desc.Text) > receiptFieldBytes+100 || strings.Contains(desc.Text, "ghp_") {
		t.Errorf("a 300 KiB field: cut %v, bytes %d, %d bytes kept, token masked: %v", desc.Cut, desc.Bytes, len(desc.Text), !strings.Contains(desc.Text, "ghp_"))
	}
	if got := r.Input[2]; got.Field != "timeout" || got.Text != "30" {
		t.Errorf("a number field %+v", got)
	}
	if none := ReceiptFor(time.Now(), req, Caller{}, d, "", false); none.Input != nil {
		t.Errorf("log_inputs off kept %+v", none.Input)
	}
}

// The ends of a 1 MiB value are masked before they are cut, so a token
// at either end is masked and one in the middle is not kept at all.
func TestReceiptMasksTheEndsOfAHugeValue(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3", 12)
	middle := strings.Repeat("m", 1<<20)
	value := token + " " + middle + " " + token + " " + middle + " " + token
	r := ReceiptFor(time.Now(), gate.Request{Tool: "exec_shell", Input: map[string]any{"command": value}}, Caller{}, gate.Decision{}, "", true)
	text := r.Input[0].Text
	if strings.Contains(text, token[4:]) || strings.Count(text, "⟪secret: github token⟫") != 2 || !r.Input[0].Cut {
		t.Errorf("kept %d bytes: %.120s … %.120s", len(text), text, text[max(0, len(text)-120):])
	}
}

func TestReceiptHardeningState(t *testing.T) {
	acted := gate.Decision{Trace: []gate.TraceEntry{{Layer: gate.LayerPermissions, Detail: "no rule; hardening: a person must decide: x"}}}
	for _, c := range []struct {
		d     gate.Decision
		exact bool
		want  string
	}{{gate.Decision{}, false, "on"}, {acted, false, "acted"}, {acted, true, "off"}} {
		if got := ReceiptFor(time.Now(), gate.Request{}, Caller{Exact: c.exact}, c.d, "", false).Hardening; got != c.want {
			t.Errorf("exact %v, trace %v: %q, want %q", c.exact, c.d.Trace, got, c.want)
		}
	}
}

// Receipt ids are short, typeable and do not repeat.
func TestReceiptIDs(t *testing.T) {
	seen := map[string]bool{}
	valid := regexp.MustCompile(`^[2-9a-km-np-z]{10}$`)
	for range 10000 {
		id := newReceiptID()
		if !valid.MatchString(id) || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

func TestLoadSettings(t *testing.T) {
	home := t.TempDir()
	if s, err := LoadSettings(home); err != nil || !s.LogInputs || s.Rotation != DefaultRotation || s.Export.Enabled {
		t.Errorf("no file: %+v, %v", s, err)
	}
	path := SettingsPath(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, path, "log_inputs = false\n[log]\nmax_mib = 2\ngenerations = 5\n[export]\notlp = true\nendpoint = \"http://127.0.0.1:4318\"\nheaders = { authorization = \"Bearer x\" }\n")
	s, err := LoadSettings(home)
	if err != nil || s.LogInputs || s.Rotation != (Rotation{MaxBytes: 2 << 20, Generations: 5}) || !s.Export.Enabled || s.Export.Endpoint != "http://127.0.0.1:4318" || s.Export.Headers["authorization"] != "Bearer x" {
		t.Errorf("%+v, %v", s, err)
	}
	for text, want := range map[string]string{
		"log_input = false\n":     "unknown key log_input",
		"log_inputs = \"no\"\n":   "line 1",
		"[log]\nmax_mib = 0\n":    "max_mib must be at least 1",
		"[log]\ngenerations=-1\n": "generations must be 0 or more",
	} {
		filetest.Write(t, path, text)
		if _, err := LoadSettings(home); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want an error naming %s and %q", text, err, path, want)
		}
	}
}

// A typo in the settings blocks every decision but a deny, saying where:
// `log_input = false` must not log inputs the user meant to keep out.
func TestBrokenSettingsBlockDecisions(t *testing.T) {
	home := t.TempDir()
	path := SettingsPath(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, path, "log_input = false\n")
	r := OpenUserRecorder(DefaultDecisionLogPath(home), home, RecorderOptions{}, nil)
	d := r.Final(gate.Request{Tool: "exec_shell"}, Caller{}, gate.Decision{Decision: gate.Allow})
	if d.Decision != gate.Deny || !strings.Contains(d.Reason, "unknown key log_input") {
		t.Errorf("%s: %s", d.Decision, d.Reason)
	}
}

// codewhale/decision shows people the call with its secrets masked.
func TestMaskDecision(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3", 12)
	rule := "tool=exec_shell command=curl " + token
	d := gate.Decision{Reason: "denied curl " + token, Rule: &rule,
		Input: map[string]any{"command": "curl -H 'Authorization: token " + token + "'", "timeout": 5, "huge": strings.Repeat("x", 1<<20) + token},
		Trace: []gate.TraceEntry{{Detail: "rule " + token}}}
	masked := MaskDecision(d)
	out, _ := json.Marshal(masked)
	if strings.Contains(string(out), token[4:]) || masked.Input["timeout"] != 5 {
		t.Errorf("masked: %.300s", out)
	}
	if !strings.Contains(d.Input["command"].(string), token) || !strings.Contains(*d.Rule, token) || !strings.Contains(d.Trace[0].Detail, token) {
		t.Error("MaskDecision changed the decision it was given")
	}
}

// A value whose first window is packed with secrets is masked whole: the
// token the window's cut splits must not come into view.
func TestReceiptMasksAWindowPackedWithSecrets(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEA7\n", 200) + "-----END RSA PRIVATE KEY-----\n"
	token := "ghp_" + strings.Repeat("aB3", 12)
	var b strings.Builder
	for b.Len() < maskWindow-20 {
		b.WriteString(key)
	}
	head := b.String()[:maskWindow-20]
	head = head[:strings.LastIndex(head, "-----BEGIN")]
	value := head + strings.Repeat(" ", maskWindow-20-len(head)) + token + strings.Repeat("z", 3*maskWindow)
	text, cut := maskedEnds(value)
	if strings.Contains(text, token[4:10]) || strings.Contains(text, "aB3aB3") || !cut {
		t.Errorf("cut %v: %.300s", cut, text)
	}
}
