package otelexport

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
)

// TestNoSecretReachesTheWire: receipts made as the decision log makes
// them, of calls carrying every secret of the corpus in their command and
// in the reason quoting it, reach the collector with each secret masked:
// not one byte sequence of a secret is in any request's body.
func TestNoSecretReachesTheWire(t *testing.T) {
	collector := newFakeCollector(t)
	sink := newTestSink(t, collector.URL)
	tokens := secretstest.Tokens(26)
	for i, tok := range tokens {
		command := "deploy --flag " + tok.Text + " && echo done"
		req := gate.Request{Tool: "exec_shell", Input: map[string]any{"command": command}, Workspace: "/abs/repo"}
		d := gate.Decision{Decision: gate.Deny, Layer: 5, LayerName: "permissions", Reason: "denied: " + command}
		caller := approvals.Caller{Session: approvals.Session{Agent: "codex", ID: "sess"}}
		sink.Send(approvals.ReceiptFor(time.Unix(int64(i), 0), req, caller, d, "", true))
	}
	if err := sink.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sent := sink.sent.Load(); sent != int64(len(tokens)) {
		t.Fatalf("%d records taken by the collector, want %d", sent, len(tokens))
	}
	wire := collector.wire()
	for _, tok := range tokens {
		if bytes.Contains(wire, []byte(tok.Secret)) {
			t.Errorf("a %s reached the collector", tok.Kind)
		}
		if !bytes.Contains(wire, []byte(secrets.Placeholder(tok.Kind))) {
			t.Errorf("no %q in what the collector received", secrets.Placeholder(tok.Kind))
		}
	}
	if !strings.Contains(string(wire), "deploy --flag ") {
		t.Error("the commands themselves did not reach the collector")
	}
}

// FuzzNoSecretInTheRecord: whatever text surrounds a secret of the corpus
// in a call's command and in the reason quoting it, the request made of
// its receipt's record holds the secret nowhere.
func FuzzNoSecretInTheRecord(f *testing.F) {
	f.Add("curl -H", "https://api.github.com", uint64(1))
	f.Add("password=", "@host", uint64(2))
	f.Add("echo \"", "\" > ~/.ssh/id", uint64(3))
	f.Fuzz(func(t *testing.T, before, after string, seed uint64) {
		for _, tok := range secretstest.Tokens(seed) {
			if strings.Contains(before, tok.Secret) || strings.Contains(after, tok.Secret) {
				continue
			}
			command := before + " " + tok.Text + " " + after
			req := gate.Request{Tool: "exec_shell", Input: map[string]any{"command": command}}
			d := gate.Decision{Decision: gate.Deny, Layer: 5, LayerName: "permissions", Reason: "denied: " + command}
			rec := record(approvals.ReceiptFor(time.Unix(0, 0), req, approvals.Caller{}, d, "", true))
			if body := encodeRequest(nil, scope{}, []logRecord{rec}); bytes.Contains(body, []byte(tok.Secret)) {
				t.Fatalf("%s in the request: %q", tok.Kind, body)
			}
		}
	})
}
