package receiptlog

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// Issue 26, "each kind of decision produces the receipt that names its
// decider; log and log --json show them": a decision of every kind,
// written through the Recorder as the editors and hooks write it, is
// listed with its decider's summary, as JSON with its decider whole, and
// `log show` says each field that locates the decider (the rule's file
// and line, the person's answer and where, when the grant was given, the
// posture, the hold).
func TestEveryDeciderIsShown(t *testing.T) {
	field := func(name, value string) string { return fmt.Sprintf("%-11s %s", name+":", value) }
	perms := "/home/u/.codewhale/permissions.toml"
	rule := "git push"
	granted := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	hold := "Codewhale cannot see which URLs this fetch reaches"
	kinds := []struct {
		kind   string
		caller approvals.Caller
		d      gate.Decision
		show   []string
	}{
		{approvals.DecidedByRule, approvals.Caller{}, gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Location: &gate.Location{File: perms, Line: 12}},
			[]string{field("  file", perms+":12"), field("  rule", "git push")}},
		{approvals.DecidedByPerson, approvals.Caller{}, gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "always", Source: "prompt"}},
			[]string{field("  answer", "always"), field("  where", "Neovim 0.12.0")}},
		{approvals.DecidedByNobody, approvals.Caller{}, gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "timeout", Source: "prompt"}},
			[]string{field("  answer", "timeout"), field("  where", "Neovim 0.12.0")}},
		{approvals.DecidedBySessionGrant, approvals.Caller{GrantedAt: granted}, gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "session", Source: "session-grant"}},
			[]string{field("  granted", "2026-12-05 09:30:00 UTC")}},
		{approvals.DecidedByPosture, approvals.Caller{}, gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Posture: "never", ByPosture: true},
			[]string{field("  posture", "never")}},
		{approvals.DecidedByForcedHold, approvals.Caller{Hold: hold}, gate.Decision{Decision: gate.Deny, Layer: gate.LayerApproval, LayerName: "approval", Reason: "needs a human"},
			[]string{field("  hold", hold)}},
		{approvals.DecidedByHardening, approvals.Caller{}, gate.Decision{Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Location: &gate.Location{File: perms, Line: 3},
			Trace: []gate.TraceEntry{{Layer: gate.LayerPermissions, Name: "permissions", Effect: gate.EffectDeny, Detail: "hardening: the line hides git push"}}},
			[]string{field("  file", perms+":3"), "hardening:  on, and it made this decision stricter"}},
		{approvals.DecidedByAgentPrompt, approvals.Caller{AgentPrompt: "Claude Code's own permission prompt"}, gate.Decision{Decision: gate.Ask, Layer: gate.LayerApproval, LayerName: "approval"},
			[]string{field("  kind", "agent-prompt")}},
		{approvals.DecidedByLayer, approvals.Caller{}, gate.Decision{Decision: gate.Deny, Layer: gate.LayerAutoReview, LayerName: "auto-review", Reason: "The safety floor blocks rm -rf /. Ask the user."},
			[]string{field("  kind", "layer")}},
		{approvals.DecidedByCodewhaleLS, approvals.Caller{}, gate.Refuse(gate.Request{}, "The workspace /x is not open in the editor. Open it first."),
			[]string{field("  kind", "codewhale-ls")}},
	}
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	rec := approvals.OpenRecorder(path, approvals.RecorderOptions{Settings: approvals.DefaultSettings(), Where: "Neovim 0.12.0"})
	for _, k := range kinds {
		rec.Final(gate.Request{Tool: "exec_shell", Workspace: "/repo", Input: map[string]any{"command": "git push"}}, k.caller, k.d)
	}
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(t, path, Filter{}, 0)
	if len(got) != len(kinds) {
		t.Fatalf("read %d receipts, want %d", len(got), len(kinds))
	}
	table := NewTable(TableOptions{Width: 400, Location: time.UTC})
	for i, k := range kinds {
		r := got[i]
		if r.Decider == nil || r.Decider.Kind != k.kind {
			t.Errorf("receipt %d: decider %+v, want %s", i, r.Decider, k.kind)
			continue
		}
		if row := table.Row(r); !strings.Contains(row, visibleAgain(r.Decider.Summary)) || !strings.HasSuffix(row, r.ID) {
			t.Errorf("%s: the table's row does not name the decider %q:\n%s", k.kind, r.Decider.Summary, row)
		}
		var js strings.Builder
		if err := WriteJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		var back struct {
			Decider json.RawMessage `json:"decider"`
		}
		want, _ := json.Marshal(r.Decider)
		if err := json.Unmarshal([]byte(js.String()), &back); err != nil || string(back.Decider) != string(want) {
			t.Errorf("%s: --json gives the decider %s, want %s", k.kind, back.Decider, want)
		}
		var shown strings.Builder
		Explain(&shown, r, TableOptions{Location: time.UTC})
		for _, want := range append(k.show, "decided by: "+visibleAgain(r.Decider.Summary)) {
			if !strings.Contains(shown.String(), want) {
				t.Errorf("%s: log show lacks %q:\n%s", k.kind, want, shown.String())
			}
		}
	}
}
