//go:build linux

package editors_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// vscodeLogReport is editors/e2e/vscode-log.mjs's report.
type vscodeLogReport struct {
	Steps   []string `json:"steps"`
	Answers []struct {
		CallID   string          `json:"callId"`
		Hook     string          `json:"hook"`
		Answer   string          `json:"answer"`
		Code     *int            `json:"code"`
		Stdout   string          `json:"stdout"`
		Decision *vscodeDecision `json:"decision"`
		Error    *string         `json:"error"`
	} `json:"answers"`
	Newer *struct {
		Text  string `json:"text"`
		Agent string `json:"agent"`
	} `json:"newer"`
	OpenMs   int64         `json:"openMs"`
	All      vscodeLogView `json:"all"`
	Deny     vscodeLogView `json:"deny"`
	Agent    vscodeLogView `json:"agent"`
	Selected struct {
		ID     string `json:"id"`
		Detail string `json:"detail"`
	} `json:"selected"`
}

// vscodeLogView is what the decision log view showed: its summary line,
// error, rows (receipt id and cells) and text.
type vscodeLogView struct {
	Summary string  `json:"summary"`
	Error   *string `json:"error"`
	Rows    []struct {
		ID    *string  `json:"id"`
		Cells []string `json:"cells"`
	} `json:"rows"`
	Detail string `json:"detail"`
	Text   string `json:"text"`
}

// ids is the view's receipt ids, top to bottom.
func (v vscodeLogView) ids() []string {
	var ids []string
	for _, r := range v.Rows {
		if r.ID != nil {
			ids = append(ids, *r.ID)
		}
	}
	return ids
}

// logToken is a GitHub token's shape (gate/secrets), made up.
const logToken = "ghp_Zq8rT2mW9xY4vB7nK3pL6sD1fG5hJ0aC8eR2"

// TestVSCodeDecisionLog: the person answers cards in VS Code (once and
// always for the harness agent, deny for a Claude Code hook call whose
// command carries a token) and a rule allows a fourth call. Each answer's
// receipt names the person, their answer and the editor (code-server, as
// its LSP clientInfo says); the rule's names its file and line. Codewhale:
// Open decision log lists exactly the receipts of the log, newest first;
// a row shows `log show`; the decision and agent filters select exactly
// the receipts they say; the token shows nowhere, masked everywhere.
func TestVSCodeDecisionLog(t *testing.T) {
	s := newVSCodeSession(t, nil)
	ws := trustedFixture(t, s)
	// Built before code-server starts (see TestVSCodeRestrictedMultiRoot).
	hookBin := serverBinary(t)
	server := s.start(t, ws, "--disable-workspace-trust")
	hookCommand := `curl -H "Authorization: token ` + logToken + `" https://api.github.com/user`
	calls := []map[string]any{
		{"call": writeCall(ws, "log-once", "notes.txt"), "answer": "once"},
		{"hook": map[string]any{
			"bin": hookBin, "args": []string{"hook", "claude-code", "--codewhale-version", "0.10.1"}, "cwd": ws,
			"event": map[string]any{
				"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": hookCommand},
				"tool_use_id": "toolu_log_token", "permission_mode": "default", "cwd": ws, "session_id": "log-session",
			},
		}, "answer": "deny"},
		{"call": writeCall(ws, "log-always", "notes.txt"), "answer": "always"},
		{"call": authorizeCall(ws, "log-rule", "ls -la"), "answer": "none"},
	}
	report := runBrowser[vscodeLogReport](t, s.tools, s.root, "e2e/vscode-log.mjs", s.browserEnv(server,
		"CODEWHALE_E2E_WORKSPACE="+ws,
		"CODEWHALE_E2E_CALLS="+mustJSON(t, calls),
		"CODEWHALE_E2E_SELECT=api.github.com",
		"CODEWHALE_E2E_LATER="+mustJSON(t, authorizeCall(ws, "log-later", "ls -l")),
	))
	for _, a := range report.Answers {
		if a.Error != nil {
			t.Errorf("%s: codewhale.authorize failed: %s", a.CallID, *a.Error)
		}
		if a.Hook != "" && !strings.Contains(a.Stdout, `"permissionDecision":"deny"`) {
			t.Errorf("the hook call answered deny in VS Code told Claude Code %q", a.Stdout)
		}
	}

	logPath := filepath.Join(s.dirs["home/.codewhale"], "codewhale-ls", "decisions.jsonl")
	rawLog, receipts := readReceipts(t, logPath)
	raw := string(rawLog)
	if strings.Contains(raw, logToken) {
		t.Errorf("%s holds the token unmasked", logPath)
	}
	// The call decided while the view was open is announced there, the
	// table and filters kept; the views compared below were read before it.
	later := slices.IndexFunc(receipts, func(r approvals.Receipt) bool { return r.CallID != nil && *r.CallID == "log-later" })
	if later != len(receipts)-1 {
		t.Fatalf("the call made while the view was open is receipt %d of %d, want the last", later, len(receipts))
	}
	receipts = receipts[:later]
	if n := report.Newer; n == nil || !strings.Contains(n.Text, "Refresh") || n.Agent != "claude-code" {
		t.Errorf("a decision made while the view was open: the view says %+v; want the Refresh notice, the agent filter kept", n)
	}
	checkPersonReceipts(t, receipts)

	// The view lists exactly the log's receipts, newest first.
	if report.All.Error != nil {
		t.Fatalf("the decision log view says: %s", *report.All.Error)
	}
	want := receiptIDs(receipts, func(approvals.Receipt) bool { return true })
	if got := report.All.ids(); !slices.Equal(got, want) {
		t.Errorf("the view lists %q, want the log's %q (newest first)", got, want)
	}
	t.Logf("VS Code: Open decision log -> %d receipts in the view in %d ms (%s)", len(report.All.Rows), report.OpenMs, report.All.Summary)
	deny := slices.IndexFunc(receipts, func(r approvals.Receipt) bool { return r.Agent == "claude-code" })
	if deny < 0 {
		t.Fatalf("no receipt of the Claude Code hook call in %s", logPath)
	}
	denied := receipts[deny]
	for _, row := range report.All.Rows {
		if row.ID == nil || *row.ID != denied.ID {
			continue
		}
		// Time, agent, repository, decision, what, decided by.
		if len(row.Cells) != 6 || row.Cells[1] != "claude-code" || row.Cells[3] != "deny" ||
			!strings.Contains(row.Cells[4], "⟪secret: ") || row.Cells[5] != denied.Decider.Summary {
			t.Errorf("the hook call's row is %q; want claude-code, deny, the masked command and %q", row.Cells, denied.Decider.Summary)
		}
	}
	if report.Selected.ID != denied.ID || !strings.Contains(report.Selected.Detail, denied.ID) {
		t.Errorf("selecting the hook call's row (%s) showed, for %s:\n%s", denied.ID, report.Selected.ID, report.Selected.Detail)
	}
	for name, text := range map[string]string{"the view": report.All.Text, "log show": report.Selected.Detail, "the deny view": report.Deny.Text, "the agent view": report.Agent.Text} {
		if strings.Contains(text, logToken) {
			t.Errorf("%s shows the token unmasked:\n%s", name, text)
		}
	}

	// The filters select exactly what they say.
	if got, want := report.Deny.ids(), receiptIDs(receipts, func(r approvals.Receipt) bool { return r.Decision == gate.Deny }); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("decision deny lists %q, want %q", got, want)
	}
	if got, want := report.Agent.ids(), receiptIDs(receipts, func(r approvals.Receipt) bool { return r.Agent == "claude-code" }); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("agent claude-code lists %q, want %q", got, want)
	}
	checkScreenshot(t, filepath.Join(s.dirs["shots"], "vscode-decision-log.png"))
}

// checkPersonReceipts: each answer given on VS Code's card has a receipt
// that names the person, the answer and the editor; the call a rule
// allowed names the rule's file and line.
func checkPersonReceipts(t *testing.T, receipts []approvals.Receipt) {
	t.Helper()
	for _, answer := range []string{"once", "deny", "always"} {
		i := slices.IndexFunc(receipts, func(r approvals.Receipt) bool {
			return r.Decider != nil && r.Decider.Kind == approvals.DecidedByPerson && r.Decider.Answer == answer
		})
		if i < 0 {
			t.Errorf("no receipt of the person's %q in the log", answer)
			continue
		}
		d := receipts[i].Decider
		// code-server's LSP clientInfo: its product name and VS Code's version.
		if !strings.HasPrefix(d.Where, "code-server ") {
			t.Errorf("the %q receipt says the person was asked in %q, want code-server (VS Code)", answer, d.Where)
		}
		t.Logf("VS Code: %s on the card -> receipt %s: %s", answer, receipts[i].ID, d.Summary)
	}
	i := slices.IndexFunc(receipts, func(r approvals.Receipt) bool { return r.Decider != nil && r.Decider.Kind == approvals.DecidedByRule })
	if i < 0 || receipts[i].Decider.Line == 0 || filepath.Base(receipts[i].Decider.File) != "permissions.toml" {
		t.Errorf("no receipt naming the rule (file and line) that allowed ls -la: %+v", receipts)
	}
}

// receiptIDs is the ids of the receipts keep takes, newest first.
func receiptIDs(receipts []approvals.Receipt, keep func(approvals.Receipt) bool) []string {
	var ids []string
	for i := len(receipts) - 1; i >= 0; i-- {
		if keep(receipts[i]) {
			ids = append(ids, receipts[i].ID)
		}
	}
	return ids
}
