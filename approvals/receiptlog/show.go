package receiptlog

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/explanation"
)

// Explain writes everything r says, for `codewhale-ls log show`: when,
// for which agent, session and repository, the call's input, who decided
// (every field of the decider), the release and the hardening layer,
// then the decision layer by layer as `codewhale-ls explain` writes it
// (gate/explanation). Every text is made visible (visibleAgain).
func Explain(w io.Writer, r approvals.Receipt, o TableOptions) {
	if o.Location == nil {
		o.Location = time.Local
	}
	t := &Table{opts: o}
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-11s %s\n", name+":", visibleAgain(value))
		}
	}
	id := r.ID
	if id == "" {
		id = "(none: written before receipts had ids)"
	}
	field("receipt", id)
	field("time", r.Time.In(o.Location).Format(TimeLayout+" MST")+" ("+r.Time.UTC().Format(time.RFC3339Nano)+")")
	field("agent", AgentOf(r))
	field("session", r.Session)
	field("repository", t.repo(r.Repo))
	field("tool", r.Tool)
	if r.CallID != nil {
		field("call id", *r.CallID)
	}
	writeInput(w, r)
	field("decision", fmt.Sprintf("%s by layer %d (%s)", r.Decision, r.Layer, r.LayerName))
	field("decided by", DecidedBy(r))
	if d := r.Decider; d != nil {
		field("  kind", d.Kind)
		if d.File != "" {
			at := d.File
			if d.Line > 0 {
				at = fmt.Sprintf("%s:%d", d.File, d.Line)
			}
			field("  file", at)
		}
		field("  rule", d.Rule)
		field("  answer", d.Answer)
		field("  where", d.Where)
		if d.GrantedAt != nil {
			field("  granted", d.GrantedAt.In(o.Location).Format(TimeLayout+" MST"))
		}
		field("  posture", d.Posture)
		field("  hold", d.Hold)
	}
	if r.Approval != nil {
		field("approval", r.Approval.Choice+" ("+r.Approval.Source+")")
	}
	field("codewhale", r.Codewhale)
	field("hardening", hardeningWords[r.Hardening])
	if r.V == 0 {
		fmt.Fprintln(w, "(a line written before receipts: no input, decider or layers were recorded)")
	}
	fmt.Fprintln(w, "layer by layer:")
	explanation.Write(w, r.Tool, decisionOf(r), visibleAgain)
}

// hardeningWords say what each hardening state of a receipt means.
var hardeningWords = map[string]string{
	"off":   "off (Codewhale's decision alone, --exact)",
	"on":    "on; it changed nothing",
	"acted": "on, and it made this decision stricter than Codewhale's (docs/hardening.md)",
}

// writeInput writes the call's input field by field as the receipt kept
// it (masked, cut), or why there is none.
func writeInput(w io.Writer, r approvals.Receipt) {
	switch {
	case len(r.Input) > 0:
		fmt.Fprintln(w, "input:")
		for _, in := range r.Input {
			about := fmt.Sprintf("%d bytes", in.Bytes)
			if in.Cut {
				about += ", its start and end shown"
			}
			fmt.Fprintf(w, "  %s: %s (%s)\n", visibleAgain(in.Field), visibleAgain(in.Text), about)
		}
	case r.Shown != "":
		fmt.Fprintf(w, "%-11s %s\n", "shown:", visibleAgain(r.Shown))
	case r.V > 0:
		fmt.Fprintf(w, "%-11s %s\n", "input:", "not recorded (log_inputs = false)")
	}
}

// decisionOf is the part of the decision r recorded, as
// gate/explanation reads a decision.
func decisionOf(r approvals.Receipt) gate.Decision {
	return gate.Decision{
		Decision:  r.Decision,
		Layer:     r.Layer,
		LayerName: r.LayerName,
		Reason:    strings.TrimSpace(r.Reason),
		Rule:      r.Rule,
		CallID:    r.CallID,
		Trace:     r.Trace,
		Approval:  r.Approval,
		Codewhale: r.Codewhale,
	}
}
