package approvals

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets"
)

// ReceiptVersion is the version of the receipt schema written
// (docs/codewhale/contract.md §4, "Receipts"). Lines without "v" were
// written before receipts (issue 15's log) and lack the fields marked v1.
const ReceiptVersion = 1

// Receipt is one line of the decision log: what was decided, for whom,
// on what, and who decided, said precisely enough to answer "why was my
// agent stopped yesterday?" (issue 26). Every text in it is masked
// (gate/secrets) before it is written: the log, `codewhale-ls log`, the
// editors' views and the exported records show no secret a call carried.
type Receipt struct {
	// V is ReceiptVersion; 0 in lines written before receipts.
	V int `json:"v,omitempty"`
	// ID names the receipt for `codewhale-ls log show ID`.
	ID   string    `json:"id,omitempty"`
	Time time.Time `json:"time"`
	// Agent names the agent whose hook asked (docs/agents.md); absent for
	// Codewhale's own calls in the editor.
	Agent string `json:"agent,omitempty"`
	// Session is the agent's own session id as its hook event named it.
	Session string `json:"session,omitempty"`
	// Repo is the workspace the call was decided in.
	Repo   string  `json:"repo,omitempty"`
	CallID *string `json:"callId"`
	Tool   string  `json:"tool"`
	// Input is the call's input as the card shows it, field by field,
	// masked and capped; absent when log_inputs is off.
	Input     []ReceiptInput `json:"input,omitempty"`
	Decision  gate.Verdict   `json:"decision"`
	Layer     gate.Layer     `json:"layer"`
	LayerName string         `json:"layerName"`
	Rule      *string        `json:"rule"`
	Reason    string         `json:"reason"`
	Approval  *gate.Approval `json:"approval"`
	// Decider says who decided (v1).
	Decider *Decider `json:"decider,omitempty"`
	// Codewhale is the release whose behaviour decided.
	Codewhale string `json:"codewhale,omitempty"`
	// Hardening is "off" (the user asked for Codewhale's behaviour
	// alone), "on" (it looked and changed nothing) or "acted"
	// (docs/hardening.md).
	Hardening string `json:"hardening,omitempty"`
	// Trace is the decision layer by layer, for `codewhale-ls log show`.
	Trace []gate.TraceEntry `json:"trace,omitempty"`
	// Shown is the title field of a call a person answered, in lines
	// written before receipts; v1 lines carry Input instead.
	Shown string `json:"shown,omitempty"`
}

// ReceiptInput is one field of a call's input as a receipt keeps it.
type ReceiptInput struct {
	Field string `json:"field"`
	// Text is the value as the card shows it (problem.Visible), secrets
	// masked, at most receiptFieldBytes of it: its start and its end.
	Text string `json:"text"`
	// Bytes is the length of the value itself.
	Bytes int `json:"bytes"`
	// Cut says Text keeps only the start and the end of the value.
	Cut bool `json:"cut,omitempty"`
}

// Decider kinds: who or what decided a call.
const (
	// DecidedByRule: a permissions.toml rule, named with its file and line.
	DecidedByRule = "rule"
	// DecidedByPerson: a person answered the approval card.
	DecidedByPerson = "person"
	// DecidedByNobody: a card was put up and nobody answered it (timed
	// out, dismissed, the editor went away), none could be shown, or
	// nobody could be asked at all (Caller.Unasked).
	DecidedByNobody = "unanswered"
	// DecidedBySessionGrant: an earlier "approve for session" answer.
	DecidedBySessionGrant = "session-grant"
	// DecidedByPosture: the runtime permission posture (layer 1).
	DecidedByPosture = "posture"
	// DecidedByForcedHold: a hold that needs a person, and none could
	// decide here (a hook that cannot ask), so it is denied.
	DecidedByForcedHold = "forced-hold"
	// DecidedByHardening: codewhale-ls's hardening layer found a command
	// the line hides from Codewhale (docs/hardening.md).
	DecidedByHardening = "hardening"
	// DecidedByAgentPrompt: the call was handed to the agent's own
	// permission prompt, whose answer codewhale-ls does not see.
	DecidedByAgentPrompt = "agent-prompt"
	// DecidedByLayer: another of Codewhale's layers (admission, hooks,
	// baseline, auto-review and the safety floor, repository law,
	// sandbox) or a built-in default, named by layer.
	DecidedByLayer = "layer"
	// DecidedByCodewhaleLS: codewhale-ls refused without deciding (a
	// request it could not decide on, a log it could not write).
	DecidedByCodewhaleLS = "codewhale-ls"
)

// Decider is who decided a call, said precisely.
type Decider struct {
	Kind string `json:"kind"`
	// Summary says it in one line, for the log's table.
	Summary string `json:"summary"`
	// File and Line locate the rule that decided, or the file that
	// stopped Codewhale (line 0 for the file as a whole).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Rule is the rule's text.
	Rule string `json:"rule,omitempty"`
	// Answer is the person's answer (once, session, always, deny) or how
	// the card ended without one (timeout, dismissed, disconnected).
	Answer string `json:"answer,omitempty"`
	// Where the person was asked: the editor by name, the approval
	// console.
	Where string `json:"where,omitempty"`
	// GrantedAt is when the session grant that allowed was given.
	GrantedAt *time.Time `json:"grantedAt,omitempty"`
	// Posture is the runtime permission posture that decided.
	Posture string `json:"posture,omitempty"`
	// Hold is why a person had to decide (a forced hold): session grants
	// and saved rules could not pass it.
	Hold string `json:"hold,omitempty"`
}

// Caller is what a decision's receipt says beyond the decision itself:
// whose call it was and what the approval flow knew.
type Caller struct {
	Session Session
	// Hold is why layer 8 held the call for a person (a forced hold), ""
	// when the hold was not forced or there was none.
	Hold string
	// GrantedAt is when the session grant that allowed the call was
	// given; zero when none did.
	GrantedAt time.Time
	// AgentPrompt names the agent's own prompt the call was handed to
	// ("Claude Code's own permission prompt"), "" when none was.
	AgentPrompt string
	// Unasked says why nobody could be asked about a call a person had
	// to decide (no editor or console serving, an agent that cannot put
	// the ask to its user), "" when someone was or none had to be.
	Unasked string
	// Exact: the hardening layer was off (docs/hardening.md).
	Exact bool
}

// ReceiptSink takes every receipt after it is written to the log: the
// OpenTelemetry export (approvals/otelexport). Send must never block a
// decision; Close flushes what is queued, bounded by ctx.
type ReceiptSink interface {
	Send(Receipt)
	Close(ctx context.Context) error
}

// SinkFlushTimeout bounds how long closing a Recorder waits for its sink
// to deliver what it queued: a collector that is down costs a closing
// process at most this.
const SinkFlushTimeout = time.Second

// receiptFieldBytes bounds what a receipt keeps of one input field: its
// first and last 2 KiB, as issue 15's log kept of the title.
const receiptFieldBytes = 4 << 10

// maskWindow is how much of each end of a long value is masked: a value
// longer than twice this is cut to its two ends before masking, so a
// 1 MiB command costs a receipt what a 32 KiB one does. The longest
// secret shape (a PEM block of an RSA 4096 key, about 3.3 KiB) is far
// shorter, so one cut by the window lies outside the 2 KiB ends the
// receipt keeps, however much masking shortens what precedes it.
const maskWindow = 16 << 10

// longestSecret bounds the length of a secret shape as problem.Visible
// shows it: a PEM block of an RSA 4096 key, its line breaks escaped.
const longestSecret = 4 << 10

// ReceiptFor is the receipt of d, the final decision of req, made for
// c at now; where names where a person is asked ("" for nowhere).
// withInput says whether the call's input is kept (log_inputs).
func ReceiptFor(now time.Time, req gate.Request, c Caller, d gate.Decision, where string, withInput bool) Receipt {
	r := Receipt{
		V:         ReceiptVersion,
		ID:        newReceiptID(),
		Time:      now.UTC(),
		Agent:     c.Session.Agent,
		Session:   c.Session.ID,
		Repo:      req.Workspace,
		CallID:    d.CallID,
		Tool:      req.Tool,
		Decision:  d.Decision,
		Layer:     d.Layer,
		LayerName: d.LayerName,
		Rule:      d.Rule,
		Reason:    d.Reason,
		Approval:  d.Approval,
		Codewhale: d.Codewhale,
		Hardening: hardeningState(d, c.Exact),
		Trace:     d.Trace,
	}
	decider := deciderOf(d, c, where)
	r.Decider = &decider
	if withInput {
		r.Input = receiptInputs(req.Input)
	}
	return r.masked()
}

// hardeningState says what the hardening layer did to d: "off" when
// exact turned it off.
func hardeningState(d gate.Decision, exact bool) string {
	switch {
	case exact:
		return "off"
	case d.HardeningActed():
		return "acted"
	}
	return "on"
}

// deciderOf says who decided d.
func deciderOf(d gate.Decision, c Caller, where string) Decider {
	dec := Decider{Kind: DecidedByLayer, Hold: c.Hold}
	if d.Location != nil {
		dec.File, dec.Line = d.Location.File, d.Location.Line
	}
	if d.Rule != nil {
		dec.Rule = *d.Rule
	}
	switch {
	case d.Refused:
		dec.Kind = DecidedByCodewhaleLS
		dec.Summary = "codewhale-ls, without deciding: " + firstSentence(d.Reason)
	case d.Approval != nil && d.Approval.Source == "prompt":
		dec.Answer, dec.Where = d.Approval.Choice, where
		dec.File, dec.Line, dec.Rule = "", 0, ""
		if _, unanswered := unansweredWords[gate.Choice(d.Approval.Choice)]; !unanswered {
			dec.Kind = DecidedByPerson
			dec.Summary = fmt.Sprintf("you, in %s: %s", orSomewhere(where), answerWords[gate.Choice(d.Approval.Choice)])
		} else {
			dec.Kind = DecidedByNobody
			dec.Summary = fmt.Sprintf("nobody: the card in %s %s", orSomewhere(where), unansweredWords[gate.Choice(d.Approval.Choice)])
		}
	case d.Approval != nil:
		dec.Kind = DecidedBySessionGrant
		dec.File, dec.Line, dec.Rule = "", 0, ""
		dec.Summary = "your earlier \"approve for session\" answer"
		if !c.GrantedAt.IsZero() {
			at := c.GrantedAt.UTC()
			dec.GrantedAt = &at
			dec.Summary += ", given " + at.Format(time.RFC3339)
		}
	case d.Layer == gate.LayerPermissions && d.HardeningActed():
		dec.Kind = DecidedByHardening
		dec.Summary = "the hardening layer: " + ruleWords(dec)
	case c.AgentPrompt != "" && d.Decision == gate.Ask:
		dec.Kind = DecidedByAgentPrompt
		dec.Summary = "handed to " + c.AgentPrompt
	case d.Layer == gate.LayerApproval && d.Decision == gate.Deny && c.Hold != "":
		dec.Kind = DecidedByForcedHold
		dec.Summary = "a forced hold no one here could answer: " + c.Hold
	case d.Layer == gate.LayerApproval && d.Decision == gate.Deny && c.Unasked != "":
		dec.Kind = DecidedByNobody
		dec.Summary = "nobody could be asked: " + c.Unasked
	case d.Layer == gate.LayerPermissions && d.Rule != nil:
		dec.Kind = DecidedByRule
		dec.Summary = ruleWords(dec)
	case d.ByPosture:
		// Layer 8 under a posture that settles it; a deny of layer 1 is
		// a file Codewhale refuses to start on, named by the default.
		dec.Kind, dec.Posture = DecidedByPosture, d.Posture
		dec.Summary = "the runtime permission posture " + d.Posture
	default:
		dec.Summary = fmt.Sprintf("layer %d (%s)", d.Layer, d.LayerName)
		switch {
		case dec.Rule != "":
			dec.Summary += ": " + ruleWords(dec)
		case dec.File != "":
			dec.Summary += ": " + fileLine(dec)
		default:
			dec.Summary += ": " + firstSentence(d.Reason)
		}
	}
	dec.Summary = problem.Visible{}.CapShown(dec.Summary, summaryBytes)
	return dec
}

// summaryBytes bounds a decider's summary: one line of the log's table.
const summaryBytes = 512

// orSomewhere is where, or words saying it is not known.
func orSomewhere(where string) string {
	if where == "" {
		return "an editor"
	}
	return where
}

var answerWords = map[gate.Choice]string{
	gate.ChoiceOnce:    "approved once",
	gate.ChoiceSession: "approved for this session",
	gate.ChoiceAlways:  "approved always in this repository",
	gate.ChoiceDeny:    "denied",
}

var unansweredWords = map[gate.Choice]string{
	gate.ChoiceTimeout:      "timed out",
	gate.ChoiceDismissed:    "was dismissed, or could not be shown",
	gate.ChoiceDisconnected: "went away unanswered",
}

// ruleWords names dec's rule and where it is written.
func ruleWords(dec Decider) string {
	words := "the rule '" + dec.Rule + "'"
	if dec.Rule == "" {
		words = "no rule"
	}
	if dec.File != "" {
		words += " at " + fileLine(dec)
	}
	return words
}

// fileLine is dec's file:line, or the file alone.
func fileLine(dec Decider) string {
	if dec.Line > 0 {
		return fmt.Sprintf("%s:%d", dec.File, dec.Line)
	}
	return dec.File
}

// firstSentence is s up to its first ". ", on one line, for a summary.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return strings.Join(strings.Fields(s), " ")
}

// receiptInputs is every field of input as the card orders and shows it
// (inputs), each masked and cut to receiptFieldBytes.
func receiptInputs(input map[string]any) []ReceiptInput {
	fields := make([]ReceiptInput, 0, len(input))
	for _, name := range inputOrder(input) {
		value := fieldValue(input[name])
		shown, cut := maskedEnds(value)
		field, _ := problem.Visible{}.Show(name)
		fields = append(fields, ReceiptInput{Field: field, Text: shown, Bytes: len(value), Cut: cut})
	}
	return fields
}

// maskedEnds is value shown visibly with its secrets masked, at most
// receiptFieldBytes of it. A value longer than 2×maskWindow has only its
// two maskWindow ends shown and masked, each then cut to its outer half
// of receiptFieldBytes: what a window's cut may split lies at the
// window's inner edge, which that keeps out of view unless masking
// shortened the window by nearly all of it; such a value (its end packed
// with secrets) is masked whole instead. cut says the text keeps only
// the value's ends.
func maskedEnds(value string) (text string, cut bool) {
	if len(value) > 2*maskWindow {
		head, _ := problem.Visible{}.Show(strings.ToValidUTF8(value[:maskWindow], ""))
		tail, _ := problem.Visible{}.Show(strings.ToValidUTF8(value[len(value)-maskWindow:], ""))
		head, _ = secrets.Mask(head)
		tail, _ = secrets.Mask(tail)
		half := receiptFieldBytes / 2
		if len(head) >= half+longestSecret && len(tail) >= half+longestSecret {
			head = strings.ToValidUTF8(head[:half], "")
			tail = strings.ToValidUTF8(tail[len(tail)-half:], "")
			return problem.Visible{}.JoinEnds(head, tail, len(value)-len(head)-len(tail)), true
		}
	}
	text, _ = problem.Visible{}.Show(value)
	masked, _ := secrets.Mask(text)
	shown := problem.Visible{}.CapShown(masked, receiptFieldBytes)
	return shown, shown != masked
}

// Masked is r with every text that may quote a call masked again
// (gate/secrets), input included, for those who read the log
// (approvals/receiptlog): a line written before the log masked secrets,
// or by hand, shows none either. Masking is idempotent, so a receipt this
// release wrote reads as written.
func (r Receipt) Masked() Receipt {
	r = r.masked()
	if len(r.Input) > 0 {
		input := make([]ReceiptInput, len(r.Input))
		for i, field := range r.Input {
			field.Text, _ = secrets.Mask(field.Text)
			input[i] = field
		}
		r.Input = input
	}
	return r
}

// masked is r with every text that may quote the call masked: the
// reason, the rule, the trace, the decider's words (the input is masked
// as it is built).
func (r Receipt) masked() Receipt {
	r.Reason, _ = secrets.Mask(r.Reason)
	r.Rule = maskedRule(r.Rule)
	r.Trace = maskedTrace(r.Trace)
	if r.Decider != nil {
		d := *r.Decider
		d.Summary, _ = secrets.Mask(d.Summary)
		d.Rule, _ = secrets.Mask(d.Rule)
		d.Hold, _ = secrets.Mask(d.Hold)
		r.Decider = &d
	}
	shown, _ := secrets.Mask(r.Shown)
	r.Shown = problem.Visible{}.CapShown(shown, receiptFieldBytes)
	return r
}

// MaskDecision is d as people may see it outside the approval card (the
// editors' decision views, codewhale/decision): every string of its input,
// its reason, rule and trace with their secrets masked. A string longer
// than 2×maskWindow keeps only its masked ends (maskedEnds), so a 1 MiB
// command costs the notification what a 32 KiB one does.
func MaskDecision(d gate.Decision) gate.Decision {
	d.Reason, _ = secrets.Mask(d.Reason)
	d.Rule = maskedRule(d.Rule)
	d.Trace = maskedTrace(d.Trace)
	if d.Input != nil {
		input := make(map[string]any, len(d.Input))
		for k, v := range d.Input {
			if s, ok := v.(string); ok {
				if len(s) > 2*maskWindow {
					v, _ = maskedEnds(s)
				} else {
					v, _ = secrets.Mask(s)
				}
			}
			input[k] = v
		}
		d.Input = input
	}
	return d
}

// maskedRule is a copy of rule with its secrets masked; nil stays nil.
func maskedRule(rule *string) *string {
	if rule == nil {
		return nil
	}
	masked, _ := secrets.Mask(*rule)
	return &masked
}

// maskedTrace is a copy of trace with its details masked.
func maskedTrace(trace []gate.TraceEntry) []gate.TraceEntry {
	if len(trace) == 0 {
		return trace
	}
	out := make([]gate.TraceEntry, len(trace))
	for i, t := range trace {
		t.Detail, _ = secrets.Mask(t.Detail)
		out[i] = t
	}
	return out
}

// receiptIDAlphabet spells receipt ids: lower-case letters and digits
// without the easily confused 0, 1, l and o.
const receiptIDAlphabet = "23456789abcdefghijkmnpqrstuvwxyz"

// newReceiptID is 10 random characters (50 bits): unique across the
// processes writing one log without coordinating, short enough to type.
func newReceiptID() string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	for i := range b {
		b[i] = receiptIDAlphabet[int(b[i])%len(receiptIDAlphabet)]
	}
	return string(b[:])
}
