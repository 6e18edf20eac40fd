package otelexport

import (
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// EventName names every exported decision, after Claude Code's
// claude_code.tool_decision and Codex's codex.tool_decision (the mapping:
// docs/telemetry.md).
const EventName = "codewhale_ls.tool_decision"

// record is r as one OpenTelemetry log record: the event name in the
// record's event name, its body (as Claude Code puts it) and its
// event.name attribute (as Codex does), the attributes both agents give
// their tool decisions (tool_name, decision, source, call_id, session.id,
// event.timestamp), then the receipt's own. Every text is the receipt's,
// already masked by the decision log (approvals.Receipt). Its severity
// is INFO (wire.go writes what every record shares).
func record(r approvals.Receipt) logRecord {
	return logRecord{time: r.Time, observed: time.Now(), attributes: attributes(r)}
}

// attributes are the record's attributes (docs/telemetry.md, "Event").
func attributes(r approvals.Receipt) []attribute {
	attrs := []attribute{
		{"event.name", EventName},
		{"event.timestamp", r.Time.UTC().Format(time.RFC3339Nano)},
		{"tool_name", r.Tool},
		{"decision", string(r.Decision)},
		{"source", source(r)},
		{"receipt.id", r.ID},
		{"layer", int64(r.Layer)},
		{"layer.name", r.LayerName},
	}
	str := func(key, value string) {
		if value != "" {
			attrs = append(attrs, attribute{key, value})
		}
	}
	if r.CallID != nil {
		str("call_id", *r.CallID)
	}
	str("session.id", r.Session)
	str("agent", r.Agent)
	str("repo", r.Repo)
	if r.Rule != nil {
		str("rule", *r.Rule)
	}
	str("reason", r.Reason)
	str("codewhale.version", r.Codewhale)
	str("hardening", r.Hardening)
	for _, f := range r.Input {
		str("input."+f.Field, f.Text)
		attrs = append(attrs, attribute{"input." + f.Field + ".bytes", int64(f.Bytes)})
		if f.Cut {
			attrs = append(attrs, attribute{"input." + f.Field + ".cut", true})
		}
	}
	if d := r.Decider; d != nil {
		str("decider.kind", d.Kind)
		str("decider.summary", d.Summary)
		str("decider.file", d.File)
		if d.Line > 0 {
			attrs = append(attrs, attribute{"decider.line", int64(d.Line)})
		}
		str("decider.rule", d.Rule)
		str("decider.answer", d.Answer)
		str("decider.where", d.Where)
		if d.GrantedAt != nil {
			str("decider.granted_at", d.GrantedAt.UTC().Format(time.RFC3339Nano))
		}
		str("decider.posture", d.Posture)
		str("decider.hold", d.Hold)
	}
	return attrs
}

// source says who decided in Claude Code's vocabulary for its
// tool_decision's source (config, hook, user_temporary, user_permanent,
// user_reject, user_abort), so one dashboard query reads both:
// codewhale-ls's own words for it are in decider.kind.
func source(r approvals.Receipt) string {
	d := r.Decider
	if d == nil {
		return "config"
	}
	switch d.Kind {
	case approvals.DecidedByPerson, approvals.DecidedByNobody:
		if s := answerSource(d.Answer); s != "" {
			return s
		}
		if d.Kind == approvals.DecidedByNobody {
			return "user_abort"
		}
	case approvals.DecidedBySessionGrant:
		return "user_temporary"
	case approvals.DecidedByAgentPrompt:
		// The agent's own prompt decides; its own tool_decision event
		// says how.
		return "agent_prompt"
	}
	if r.LayerName == "hooks" {
		return "hook"
	}
	return "config"
}

// answerSource is a person's answer (approvals.Decider.Answer) as Claude
// Code's source: once and for the session are temporary, always is a rule
// kept, and no answer is an abort; "" for an answer it does not know.
func answerSource(answer string) string {
	switch answer {
	case "once", "session":
		return "user_temporary"
	case "always":
		return "user_permanent"
	case "deny":
		return "user_reject"
	case "timeout", "dismissed", "disconnected":
		return "user_abort"
	}
	return ""
}
