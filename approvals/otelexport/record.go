package otelexport

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"

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
// already masked by the decision log (approvals.Receipt).
func record(r approvals.Receipt) log.Record {
	var rec log.Record
	rec.SetEventName(EventName)
	rec.SetTimestamp(r.Time)
	rec.SetObservedTimestamp(time.Now())
	rec.SetBody(attribute.StringValue(EventName))
	rec.SetSeverity(log.SeverityInfo)
	rec.SetSeverityText("INFO")
	rec.AddAttributes(attributes(r)...)
	return rec
}

// attributes are the record's attributes (docs/telemetry.md, "Event").
func attributes(r approvals.Receipt) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String("event.name", EventName),
		attribute.String("event.timestamp", r.Time.UTC().Format(time.RFC3339Nano)),
		attribute.String("tool_name", r.Tool),
		attribute.String("decision", string(r.Decision)),
		attribute.String("source", source(r)),
		attribute.String("receipt.id", r.ID),
		attribute.Int("layer", int(r.Layer)),
		attribute.String("layer.name", r.LayerName),
	}
	str := func(key, value string) {
		if value != "" {
			attrs = append(attrs, attribute.String(key, value))
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
		attrs = append(attrs, attribute.Int("input."+f.Field+".bytes", f.Bytes))
		if f.Cut {
			attrs = append(attrs, attribute.Bool("input."+f.Field+".cut", true))
		}
	}
	if d := r.Decider; d != nil {
		str("decider.kind", d.Kind)
		str("decider.summary", d.Summary)
		str("decider.file", d.File)
		if d.Line > 0 {
			attrs = append(attrs, attribute.Int("decider.line", d.Line))
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
		if s, ok := answerSources[d.Answer]; ok {
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

// answerSources are a person's answers (approvals.Decider.Answer) as
// Claude Code's sources: once and for the session are temporary, always
// is a rule kept, and no answer is an abort.
var answerSources = map[string]string{
	"once":         "user_temporary",
	"session":      "user_temporary",
	"always":       "user_permanent",
	"deny":         "user_reject",
	"timeout":      "user_abort",
	"dismissed":    "user_abort",
	"disconnected": "user_abort",
}
