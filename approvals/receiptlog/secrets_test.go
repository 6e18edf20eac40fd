package receiptlog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
)

// writeSecretsLog writes, through approvals.Recorder as every decider
// does, one receipt per token of the secrets corpus, the token in the
// command, another input field, the reason, the rule, the trace and the
// hold; then a line written before receipts holding tokens unmasked, as a
// log written before masking may. It returns the log and the tokens.
func writeSecretsLog(t testing.TB) (string, []secretstest.Token) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "codewhale-ls", "decisions.jsonl")
	rec := approvals.OpenRecorder(path, approvals.RecorderOptions{Settings: approvals.DefaultSettings(), Where: "Neovim 0.12.0"})
	tokens := secretstest.Tokens(26)
	for i, tok := range tokens {
		rule := "tool=exec_shell command=" + tok.Text
		req := gate.Request{Tool: "exec_shell", Workspace: dir, Input: map[string]any{
			"command":     "curl -H x " + tok.Text + " https://example.com",
			"description": "uses " + tok.Text,
		}}
		d := gate.Decision{
			Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule,
			Reason: "denied: " + tok.Text, Location: &gate.Location{File: "/home/u/.codewhale/permissions.toml", Line: i + 1},
			Trace: []gate.TraceEntry{{Layer: gate.LayerPermissions, Name: "permissions", Effect: gate.EffectDeny, Detail: "rule " + tok.Text}},
		}
		if i%3 == 1 {
			d = gate.Decision{Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Reason: "approved: " + tok.Text,
				Approval: &gate.Approval{Choice: "once", Source: "prompt"},
				Trace:    []gate.TraceEntry{{Layer: gate.LayerApproval, Name: "approval", Effect: gate.EffectAllow, Detail: "a person approved " + tok.Text}}}
		}
		rec.Final(req, approvals.Caller{Session: approvals.Session{Agent: "codex", ID: "s1"}, Hold: "hold for " + tok.Text}, d)
	}
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tok := range tokens {
		line, _ := json.Marshal(map[string]any{"time": time.Now().UTC(), "tool": "exec_shell", "decision": "allow", "layer": 8,
			"layerName": "approval", "reason": "ok " + tok.Text, "shown": "curl " + tok.Text, "rule": tok.Text})
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	return path, tokens
}

// noSecret fails when text holds a token's secret, or any line of it (a
// PEM block's lines are shown joined by ⏎ or \n).
func noSecret(t *testing.T, where, text string, tokens []secretstest.Token) {
	t.Helper()
	for _, tok := range tokens {
		for _, part := range strings.Split(tok.Secret, "\n") {
			if len(part) >= 8 && strings.Contains(text, part) {
				t.Errorf("%s shows the %s %q", where, tok.Kind, part)
			}
		}
	}
}

// Issue 26, "the secrets corpus: no token in … the table, JSON": every
// token written through the Recorder is masked in the file, the table,
// the JSON lines and `log show`; so is a token in a line written before
// the log masked.
func TestNoSecretInTheTableJSONOrShow(t *testing.T) {
	path, tokens := writeSecretsLog(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	written := strings.SplitAfter(string(raw), "\n")
	noSecret(t, "the log's receipts", strings.Join(written[:len(tokens)], ""), tokens)
	got, _ := readAll(t, path, Filter{}, 0)
	if len(got) != 2*len(tokens) {
		t.Fatalf("read %d receipts, want %d", len(got), 2*len(tokens))
	}
	table := NewTable(TableOptions{Width: 1000, Location: time.UTC})
	var out, js, shown strings.Builder
	out.WriteString(table.Header() + "\n")
	for _, r := range got {
		out.WriteString(table.Row(r) + "\n")
		if err := WriteJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		Explain(&shown, r, TableOptions{Location: time.UTC})
	}
	noSecret(t, "the table", out.String(), tokens)
	noSecret(t, "--json", js.String(), tokens)
	noSecret(t, "log show", shown.String(), tokens)
	for _, want := range []string{"⟪secret: github token⟫", "⟪secret: private key⟫", "⟪secret: url password⟫"} {
		if !strings.Contains(shown.String(), want) || !strings.Contains(js.String(), want) {
			t.Errorf("no %s shown: the masks themselves must show", want)
		}
	}
}
