package otelexport

import (
	"fmt"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// ruleDeny is a receipt of a call a rule denied, as the decision log
// writes it.
func ruleDeny() approvals.Receipt {
	call, rule := "call_7", "git push"
	return approvals.Receipt{
		V: 1, ID: "k3f9x2ab7q", Time: time.Date(2026, 12, 6, 13, 14, 2, 123456789, time.UTC),
		Agent: "codex", Session: "sess-1", Repo: "/abs/repo", Tool: "exec_shell", CallID: &call,
		Input:    []approvals.ReceiptInput{{Field: "command", Text: "git push origin main", Bytes: 20}},
		Decision: "deny", Layer: 5, LayerName: "permissions", Rule: &rule, Reason: "denied by a rule",
		Decider:   &approvals.Decider{Kind: "rule", Summary: "the rule at permissions.toml:12", File: "/home/u/.codewhale/permissions.toml", Line: 12, Rule: rule},
		Codewhale: "0.10.1", Hardening: "off",
	}
}

func attrMap(attrs []attribute) map[string]string {
	m := map[string]string{}
	for _, a := range attrs {
		m[a.key] = fmt.Sprint(a.value)
	}
	return m
}

func TestAttributesOfARuleDeny(t *testing.T) {
	got := attrMap(attributes(ruleDeny()))
	want := map[string]string{
		"event.name": EventName, "event.timestamp": "2026-12-06T13:14:02.123456789Z",
		"tool_name": "exec_shell", "decision": "deny", "source": "config", "call_id": "call_7",
		"session.id": "sess-1", "agent": "codex", "repo": "/abs/repo", "receipt.id": "k3f9x2ab7q",
		"layer": "5", "layer.name": "permissions", "rule": "git push", "reason": "denied by a rule",
		"input.command": "git push origin main", "input.command.bytes": "20",
		"decider.kind": "rule", "decider.summary": "the rule at permissions.toml:12",
		"decider.file": "/home/u/.codewhale/permissions.toml", "decider.line": "12", "decider.rule": "git push",
		"codewhale.version": "0.10.1", "hardening": "off",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected attribute %s = %q", k, got[k])
		}
	}
}

// TestAttributesOfAnAnsweredCall: the person's answer and where, a
// session grant's time, and a value cut to its ends.
func TestAttributesOfAnAnsweredCall(t *testing.T) {
	r := ruleDeny()
	granted := time.Date(2026, 12, 6, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	r.Decision, r.Rule = "allow", nil
	r.Input = []approvals.ReceiptInput{{Field: "command", Text: "make … test", Bytes: 9000, Cut: true}}
	r.Decider = &approvals.Decider{Kind: "session-grant", Summary: "your approval for the session", GrantedAt: &granted, Where: "Neovim 0.12.0"}
	got := attrMap(attributes(r))
	for k, v := range map[string]string{
		"decision": "allow", "source": "user_temporary", "decider.kind": "session-grant", "decider.where": "Neovim 0.12.0",
		"decider.granted_at": "2026-12-06T08:00:00Z", "input.command": "make … test", "input.command.bytes": "9000", "input.command.cut": "true",
	} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["rule"]; ok {
		t.Errorf("rule exported for a receipt without one: %q", got["rule"])
	}
}

// TestAttributesLeaveOutWhatTheReceiptLacks: a receipt written with
// log_inputs = false, or before v1, exports no empty attribute.
func TestAttributesLeaveOutWhatTheReceiptLacks(t *testing.T) {
	got := attrMap(attributes(approvals.Receipt{Tool: "read_file", Decision: "allow", LayerName: "posture", Layer: 1}))
	for _, k := range []string{"call_id", "session.id", "agent", "repo", "rule", "input.command", "decider.kind", "decider.line"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s = %q exported for a receipt without it", k, v)
		}
	}
	if got["source"] != "config" {
		t.Errorf("source %q, want config", got["source"])
	}
}

func TestSourceSaysWhoDecidedInClaudeCodesWords(t *testing.T) {
	cases := []struct {
		decider   *approvals.Decider
		layerName string
		want      string
	}{
		{&approvals.Decider{Kind: "rule"}, "permissions", "config"},
		{&approvals.Decider{Kind: "posture"}, "posture", "config"},
		{&approvals.Decider{Kind: "hardening"}, "sandbox", "config"},
		{&approvals.Decider{Kind: "layer"}, "hooks", "hook"},
		{&approvals.Decider{Kind: "person", Answer: "once"}, "approval", "user_temporary"},
		{&approvals.Decider{Kind: "person", Answer: "session"}, "approval", "user_temporary"},
		{&approvals.Decider{Kind: "person", Answer: "always"}, "approval", "user_permanent"},
		{&approvals.Decider{Kind: "person", Answer: "deny"}, "approval", "user_reject"},
		{&approvals.Decider{Kind: "unanswered", Answer: "timeout"}, "approval", "user_abort"},
		{&approvals.Decider{Kind: "unanswered"}, "approval", "user_abort"},
		{&approvals.Decider{Kind: "forced-hold"}, "approval", "config"},
		{&approvals.Decider{Kind: "agent-prompt"}, "approval", "agent_prompt"},
		{&approvals.Decider{Kind: "session-grant"}, "approval", "user_temporary"},
		{&approvals.Decider{Kind: "codewhale-ls"}, "approval", "config"},
		{nil, "permissions", "config"},
	}
	for _, c := range cases {
		if got := source(approvals.Receipt{Decider: c.decider, LayerName: c.layerName}); got != c.want {
			t.Errorf("decider %+v in %s: source %q, want %q", c.decider, c.layerName, got, c.want)
		}
	}
}
