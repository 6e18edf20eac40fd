package approvals

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
)

// A receipt read from a log written before masking (or by hand) shows no
// token once Masked, whatever field holds it; a receipt this release
// wrote reads as written.
func TestReceiptMaskedAgain(t *testing.T) {
	for _, tok := range secretstest.Tokens(11) {
		rule := "tool=exec_shell command=" + tok.Text
		r := Receipt{
			Time: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC), Tool: "exec_shell", Decision: gate.Deny, Reason: "no: " + tok.Text, Rule: &rule, Shown: "curl " + tok.Text,
			Input:   []ReceiptInput{{Field: "command", Text: "curl " + tok.Text, Bytes: 5 + len(tok.Text)}},
			Trace:   []gate.TraceEntry{{Layer: gate.LayerPermissions, Detail: "rule " + tok.Text}},
			Decider: &Decider{Kind: DecidedByRule, Summary: "the rule " + tok.Text, Rule: tok.Text, Hold: tok.Text},
		}
		masked := r.Masked()
		line, err := json.Marshal(masked)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range strings.Split(tok.Secret, "\n") {
			if strings.Contains(string(line), part) {
				t.Errorf("%s survives Masked: %s", tok.Kind, line)
			}
		}
		if r.Input[0].Text != "curl "+tok.Text {
			t.Errorf("Masked changed the receipt it was given")
		}
		again, _ := json.Marshal(masked.Masked())
		if string(again) != string(line) {
			t.Errorf("masking twice differs:\n%s\n%s", line, again)
		}
	}
}
