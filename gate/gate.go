package gate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/autoreview"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hardening"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/patchfiles"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// Deps are the side effects a decision may need.
type Deps struct {
	// Hooks runs tool_call_before hooks; nil runs none.
	Hooks      hooks.Runner
	Background *hooks.Background
	Sessions   Sessions
	SessionID  string
	// RequestMayOnlyTighten refuses, at layer 1, a request whose posture or
	// mode would loosen what the files chose: set where the request comes
	// from the agent being judged (the language server), never where it is
	// the invoker's own question (the command line).
	RequestMayOnlyTighten bool
	// Exact decides as Codewhale does and nothing more: the hardening
	// layer (docs/hardening.md), on by default, is off. Set by the
	// invoker (`--exact`, initializationOptions.hardening = false), never
	// by a request.
	Exact bool
}

// plan is the call's state as it moves through the layers, mirroring
// Codewhale's planning loop (docs/codewhale/pipeline.md §10.1).
type plan struct {
	req      Request
	snap     *config.Snapshot
	s        resolvedSession
	input    map[string]any
	semantic string
	require  Requirement

	need, force, hookAsk bool
	// withheldHook: a tool_call_before hook of an unapproved project
	// hooks.toml matches the call (layer 3); layer 4 holds the call for a
	// human instead of running repository code nobody approved.
	withheldHook bool
	desc         string
	descRule     *string
	allowLayer   Layer
	allowRule    *string
	// ruleAt is where the rule layer 5 matched is written, for the
	// decision that names that rule (ruleAtLabel).
	ruleAt      *Location
	ruleAtLabel string
	sandbox     Sandbox
	// escalated is the sandbox an approved escalation request (layer 9,
	// §9.2) widens the call's to; nil when the call asks for none.
	escalated *Sandbox
	// call is the call as auto-review sees it, its shell command parsed
	// once for every layer that classifies it (4, 6, 8).
	call autoreview.Call
	// class is layer 6's classification of the call, reused by layer 8.
	class *autoreview.Classification
	// patchTargets are the files an apply_patch call touches, parsed once
	// from the input the later layers see.
	patchTargets []string
	// bounded memoises writetarget.Qualifies for the call's targets, which
	// layers 4 and 6 both ask (it reads the disk).
	bounded *bool

	// hidden are the commands the hardening layer found the shell line
	// hides (gate/hardening); none when it is off or found none.
	hidden []hardening.Finding

	// d is the decision being built, held in the plan (not behind a
	// pointer) so that neither needs the heap.
	d Decision
}

func (p *plan) trace(l Layer, e Effect, detail string) {
	p.d.Trace = append(p.d.Trace, TraceEntry{Layer: l, Name: l.String(), Effect: e, Detail: detail})
}

// traceInPlace records what a layer did where the trace holds that layer,
// for the hardening layer, which runs after layers 6 and 7 (it only
// tightens what they leave) yet acts as layer 5 (docs/hardening.md): the
// trace stays one ordered entry per layer. Beside an entry the layer
// already made, the details are joined and the stronger effect kept.
func (p *plan) traceInPlace(l Layer, e Effect, detail string) {
	at := len(p.d.Trace)
	for i, t := range p.d.Trace {
		if t.Layer == l {
			p.d.Trace[i].Detail = t.Detail + "; " + detail
			if effectStrength[e] > effectStrength[t.Effect] {
				p.d.Trace[i].Effect = e
			}
			return
		}
		if t.Layer > l {
			at = i
			break
		}
	}
	p.d.Trace = slices.Insert(p.d.Trace, at, TraceEntry{Layer: l, Name: l.String(), Effect: e, Detail: detail})
}

// effectStrength orders effects by how far they keep a call from running.
var effectStrength = map[Effect]int{EffectNone: 0, EffectAllow: 1, EffectRewrite: 1, EffectTighten: 2, EffectAsk: 3, EffectDeny: 4}

func (p *plan) finish(v Verdict, l Layer, reason string, rule *string) Decision {
	p.d.Decision, p.d.Layer, p.d.LayerName, p.d.Reason, p.d.Rule = v, l, l.String(), reason, rule
	if rule != nil && p.ruleAt != nil && *rule == p.ruleAtLabel {
		p.d.Location = p.ruleAt
	}
	p.d.Input = p.input
	p.d.Posture = p.s.posture.String()
	p.d.Mode = p.s.mode.String()
	p.d.Sandbox = p.sandbox
	p.d.Codewhale = p.snap.Release.Name()
	return p.d
}

// changed records that a release change took part in the decision.
func (p *plan) changed(c release.Change) {
	s := c.String()
	if !slices.Contains(p.d.Changes, s) {
		p.d.Changes = append(p.d.Changes, s)
	}
}

func (p *plan) deny(l Layer, reason string, rule *string) Decision {
	p.trace(l, EffectDeny, reason)
	return p.finish(Deny, l, reason, rule)
}

// requireApproval records that a layer wants a human, with its reason.
func (p *plan) requireApproval(desc string, rule *string, force bool) {
	p.need, p.desc, p.descRule = true, desc, rule
	if force {
		p.force = true
	}
}

// clearApproval is a later layer's allow: it lifts an ordinary approval, but
// never a hook ask or a forced hold (the monotonic contract).
func (p *plan) clearApproval(l Layer, rule *string) bool {
	if p.hookAsk || p.force {
		return false
	}
	p.need, p.allowLayer, p.allowRule = false, l, rule
	return true
}

// Decide runs the nine layers for one call over one snapshot. It never
// panics: an internal error becomes a deny that says so.
func Decide(ctx context.Context, snap *config.Snapshot, req Request, deps Deps) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Refuse(req, fmt.Sprintf("codewhale-ls internal error while deciding: %v", r))
		}
	}()
	if deps.Sessions == nil {
		deps.Sessions = NoSessions{}
	}
	p := &plan{req: req, snap: snap, input: req.Input, d: Decision{CallID: req.CallID, Trace: make([]TraceEntry, 0, 9)}}
	if snap == nil {
		return Refuse(req, "codewhale-ls has no policy snapshot loaded")
	}

	// Layer 1: posture.
	if deps.RequestMayOnlyTighten {
		if reason := loosening(snap, req); reason != "" {
			return Refuse(req, reason)
		}
	}
	p.s = resolveSession(snap.Policy, snap.Release, req)
	p.sandbox = sandboxPolicy(p.s.authority, snap.Policy.SandboxMode.Value, req.Workspace, sandboxNetwork(snap))
	p.sessionChanges()
	if fatal := snap.Fatal(); len(fatal) > 0 {
		p.d.Location = fatalLocation(snap)
		return p.deny(LayerPosture, "Codewhale refuses to start: "+strings.Join(fatal, "; "), nil)
	}
	p.trace(LayerPosture, EffectNone, p.s.describe(snap.Policy))

	// Layer 2: mode and tool admission.
	reason, detail, by := admission(req, p.s.shellOn, snap.Policy.CodeMode.Value, snap.Release)
	if by != (release.Change{}) {
		p.changed(by)
	}
	if reason != "" {
		p.trace(LayerAdmission, EffectDeny, detail)
		return p.finish(Deny, LayerAdmission, reason, nil)
	}
	p.trace(LayerAdmission, EffectNone, detail)

	// Layer 3: tool_call_before hooks.
	if d, done := p.runHooks(ctx, deps); done {
		return d
	}
	if d, done := p.recheckDenyList(); done {
		return d
	}
	p.semantic = tool.Semantic(req.Tool, p.input)
	p.call = autoreview.NewCall(req.Tool, p.input)
	if p.semantic == "apply_patch" {
		p.patchTargets = patchfiles.Targets(p.input)
	}

	// Layer 4: registered-tool baseline.
	if d, done := p.baseline(); done {
		return d
	}
	// Layer 5: typed permission rules.
	if d, done := p.permissions(); done {
		return d
	}
	// Layer 6: auto-review and the safety floor.
	if d, done := p.autoReview(); done {
		return d
	}
	// Layer 7: repository law.
	if d, done := p.repoLaw(); done {
		return d
	}
	// Layer 9, the part Codewhale plans before approval.
	if d, done := p.sandboxBeforeApproval(); done {
		return d
	}
	// codewhale-ls's hardening layer, tighten-only (docs/hardening.md).
	if d, done := p.harden(deps); done {
		return d
	}

	// Layer 8: human approval.
	if d, done := p.approval(deps.Sessions); done {
		return d
	}
	// Layer 9: the sandbox the call runs under.
	p.sandboxApproved()
	p.traceSandbox()
	return p.finish(Allow, p.allowLayer, allowReason(p.allowLayer), p.allowRule)
}

func allowReason(l Layer) string {
	switch l {
	case LayerPermissions:
		return "Execution allowed by policy."
	case LayerAutoReview:
		return "Auto-review allowed the call."
	case LayerApproval:
		return "Approved."
	}
	return "No approval required."
}

// Refuse is the fail-closed answer to our own errors, and to a request
// codewhale-ls will not decide: a deny of layer 1 with the reason.
func Refuse(req Request, reason string) Decision {
	return Decision{
		Decision: Deny, Layer: LayerPosture, LayerName: LayerPosture.String(), Reason: reason,
		CallID: req.CallID, Mode: req.Mode.String(), Posture: "ask", Input: req.Input,
		Sandbox: readOnly(),
		Trace:   []TraceEntry{{Layer: LayerPosture, Name: LayerPosture.String(), Effect: EffectDeny, Detail: reason}},
		Refused: true,
	}
}

// NewSessionID names a session for the hooks' environment, as Codewhale's
// sess_<hex> ids look.
func NewSessionID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "sess_" + hex.EncodeToString(b[:])
}
