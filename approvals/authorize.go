package approvals

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
)

// Policies is where an Authorizer reads the policy a call is decided on:
// the language server's snapshots of the files on disk.
type Policies interface {
	// Snapshot is the workspace's policy now. It may wait, until ctx
	// ends, for what a decision needs (the user's Codewhale release); a
	// non-empty refusal denies the call without deciding it (a workspace
	// the editor did not open, a release never known).
	Snapshot(ctx context.Context, workspace string) (snap *config.Snapshot, refusal string)
	// Reload is told after an "always" rule was written, so the next call
	// reads it without waiting for the file watcher.
	Reload()
}

// Config is what an Authorizer is made of.
type Config struct {
	// Asker puts approval prompts in front of the editor's user.
	Asker Asker
	// Timeout bounds every prompt (DefaultTimeout when not positive); the
	// user's own approval timeouts can only shorten it.
	Timeout time.Duration
	// Policies are the snapshots calls are decided on.
	Policies Policies
	// Hooks runs tool_call_before hooks; nil runs none.
	Hooks hooks.Runner
	// Log records every final decision; nil records none (the user turned
	// the log off). The Authorizer owns it from here and closes it.
	Log *Recorder
	// Grant appends "always" rules to a permissions.toml; nil is
	// AppendRules (tests stand in a failing disk).
	Grant func(path string, rules []execpolicy.Rule) (int, error)
	// ShownBy names who shows the prompts, in the trace and the decision
	// log: "the editor" when empty, "the approval console".
	ShownBy string
	// Exact decides as Codewhale does and nothing more: the hardening
	// layer off (initializationOptions.hardening = false, docs/hardening.md).
	Exact bool
}

// Authorizer decides the calls of an editor-hosted agent, and of other
// agents whose pre-tool hooks ask the editor: the gate on one snapshot,
// the editor's user where layer 8 needs a human, then the answer's effects
// (session grants, kept per agent and agent session: Session; an "always"
// rule) and the decision log. Every decision
// Authorize returns is final: allow or deny. It is the one owner of the
// approval flow's state: prompts, session grants, background hooks, the
// log, and the lifetime that ends them (Close).
type Authorizer struct {
	broker   *Broker
	sessions *Sessions
	policies Policies
	log      *Recorder
	grant    func(path string, rules []execpolicy.Rule) (int, error)
	deps     gate.Deps

	// lifetime ends at Close: the decisions in flight stop waiting
	// (release detection, hooks) and are denied.
	lifetime    context.Context
	endLifetime context.CancelFunc
	mu          sync.Mutex
	closed      bool
	inFlight    sync.WaitGroup // Authorize and Explain calls, counted under mu
}

// New makes an Authorizer from c; Close ends what it starts.
func New(c Config) *Authorizer {
	grant := c.Grant
	if grant == nil {
		grant = AppendRules
	}
	a := &Authorizer{
		broker:   NewBroker(c.Asker, c.Timeout, c.ShownBy),
		sessions: NewSessions(),
		policies: c.Policies,
		log:      c.Log,
		grant:    grant,
	}
	a.deps = gate.Deps{
		// Sessions is set per call: each asker reads only its own answers
		// (Session).
		Hooks: c.Hooks, Background: hooks.NewBackground(c.Hooks), SessionID: gate.NewSessionID(),
		// The agent being judged sends the request: it may not pick a
		// looser posture than the one the user chose.
		RequestMayOnlyTighten: true,
		Exact:                 c.Exact,
	}
	a.lifetime, a.endLifetime = context.WithCancel(context.Background())
	return a
}

// shuttingDown is the deny of a call that came after Close began.
const shuttingDown = "codewhale-ls is shutting down"

// begin counts a call in and cuts ctx short at Close; ok is false once
// Close has begun.
func (a *Authorizer) begin(ctx context.Context) (_ context.Context, done func(), ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ctx, func() {}, false
	}
	a.inFlight.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(a.lifetime, cancel)
	return ctx, func() { stop(); cancel(); a.inFlight.Done() }, true
}

// Authorize decides req for agent: "" for the editor's own agent, else
// the other agent whose pre-tool hook asked (its prompt and its log entry
// name it). Session grants are agent's own (Session{Agent: agent}); a
// hook's call goes through AuthorizeHook, which also keys them by the
// agent's session. A deadline of ctx sooner than the prompt's own ends the
// prompt, so the answer reaches a caller that stops waiting then. A call
// refused before it is decided is logged too.
func (a *Authorizer) Authorize(ctx context.Context, req gate.Request, agent string) gate.Decision {
	return a.authorize(ctx, req, Session{Agent: agent})
}

// AuthorizeHook decides the call another agent's pre-tool hook put to the
// editor (or the approval console) over the approval socket: the agent
// runs the call itself, outside Codewhale's OS sandbox, whatever the
// request says, and the hook asks only when its own decision is an ask.
// A "for this session" answer is granted to that agent's session alone
// (Session{r.Agent, r.Session}). A request naming no agent is refused: it
// would read the editor's own agent's grants.
func (a *Authorizer) AuthorizeHook(ctx context.Context, r remote.Request) gate.Decision {
	r.Call.OutsideSandbox = true
	r.Call.AskedForHuman = true
	if r.Agent == "" {
		return a.Final(r.Call, a.caller(Session{}), gate.Refuse(r.Call, "the approval request names no agent; a hook's request must say which agent asks"))
	}
	return a.authorize(ctx, r.Call, Session{Agent: r.Agent, ID: r.Session})
}

// authorize decides req for session's agent, with session's answers.
func (a *Authorizer) authorize(ctx context.Context, req gate.Request, session Session) gate.Decision {
	caller := a.caller(session)
	ctx, done, ok := a.begin(ctx)
	defer done()
	if !ok {
		return a.Final(req, caller, gate.Refuse(req, shuttingDown))
	}
	snap, refusal := a.policies.Snapshot(ctx, req.Workspace)
	if refusal != "" {
		return a.Final(req, caller, gate.Refuse(req, refusal))
	}
	deps, grants := a.depsOf(session)
	d := gate.Decide(ctx, snap, req, deps)
	caller.GrantedAt = grants.GrantedAt()
	if d.Decision == gate.Ask {
		if d.Prompt != nil && d.Prompt.Forced {
			caller.Hold = d.Reason
		}
		d = a.ask(ctx, snap, req, session, d)
	}
	if req.AskedForHuman && d.Decision == gate.Allow && d.Approval == nil {
		// The hook asked for a person by its rules; these would let the
		// call through with nobody asked. The looser of two deciders must
		// not win.
		d = blocked(d, fmt.Sprintf("The agent's hook asked for a person to approve this call, but the rules here (Codewhale %s) would allow it with nobody asked: "+
			"the two disagree (another Codewhale release, or the policy files changed between the two reads), so it is denied. "+
			"Make the hook and the editor use the same release (--codewhale-version in the hook's command, the editor's Codewhale version setting), then retry.", snap.Release.Name()))
	}
	if err := ctx.Err(); err != nil && d.Decision != gate.Deny {
		d = blocked(d, "The authorize request was cancelled ("+err.Error()+"); a cancelled call is denied.")
	}
	return a.Final(req, caller, d)
}

// Explain is Authorize without a prompt and without the log: an ask stays
// ask. It reads the editor's own agent's session grants, so it says what
// Authorize would do now for that agent.
func (a *Authorizer) Explain(ctx context.Context, req gate.Request) gate.Decision {
	ctx, done, ok := a.begin(ctx)
	defer done()
	if !ok {
		return gate.Refuse(req, shuttingDown)
	}
	snap, refusal := a.policies.Snapshot(ctx, req.Workspace)
	if refusal != "" {
		return gate.Refuse(req, refusal)
	}
	deps, _ := a.depsOf(Session{})
	return gate.Decide(ctx, snap, req, deps)
}

// depsOf is the gate's dependencies for one decision of a call of
// session: its own earlier answers only, seen through grants.
func (a *Authorizer) depsOf(session Session) (gate.Deps, *SessionView) {
	deps := a.deps
	grants := a.sessions.Of(session)
	deps.Sessions = grants
	return deps, grants
}

// caller is the receipt's account of a call of session, before deciding.
func (a *Authorizer) caller(session Session) Caller {
	return Caller{Session: session, Exact: a.deps.Exact}
}

// Hardening says whether the hardening layer is on (docs/hardening.md).
func (a *Authorizer) Hardening() bool { return !a.deps.Exact }

// Pending is how many prompts wait for the user, and the other agents
// (pre-tool hooks) whose prompts they are, sorted, each once.
func (a *Authorizer) Pending() (prompts int, agents []string) {
	return a.broker.Pending(), a.broker.PendingAgents()
}

// Close denies every pending prompt at once, ends the decisions still in
// flight (hooks, waits) and waits for them, then stops the background
// hooks and closes the log. The prompts close first, so that a call
// waiting on its prompt is recorded as "disconnected" rather than as
// cancelled. Calls after Close are denied. It is safe to call twice.
func (a *Authorizer) Close() {
	a.mu.Lock()
	wasClosed := a.closed
	a.closed = true
	a.mu.Unlock()
	a.broker.Close()
	a.endLifetime()
	a.inFlight.Wait()
	if wasClosed {
		return
	}
	a.deps.Background.Close()
	flush, cancel := context.WithTimeout(context.Background(), SinkFlushTimeout)
	defer cancel()
	_ = a.log.Close(flush)
}

// ask settles an ask decision through the broker; a session answer is
// session's.
func (a *Authorizer) ask(ctx context.Context, snap *config.Snapshot, req gate.Request, session Session, d gate.Decision) gate.Decision {
	prompt, err := NewPrompt(req, d)
	if err != nil {
		return gate.Answered(d, req.Tool, gate.Answer{Choice: gate.ChoiceDismissed, By: "by codewhale-ls", Why: err.Error()})
	}
	prompt.Agent = session.Agent
	card := d.Prompt
	answer := a.broker.Ask(ctx, prompt, approvalBound(snap))
	switch answer.Choice {
	case gate.ChoiceSession:
		a.sessions.Approve(session, card.SessionGrants...)
	case gate.ChoiceDeny:
		a.sessions.Deny(session, card.ExactKey)
	case gate.ChoiceAlways:
		answer.By += a.persist(snap, card.Always)
	}
	final := gate.Answered(d, req.Tool, answer)
	if final.Decision != gate.Allow {
		if session.Agent != "" {
			// Another agent's model and its transcript's reader see this
			// reason, not the card: it says where the person was asked.
			final.Reason += " Asked in " + a.broker.shownBy + "."
		}
		return final
	}
	// Codewhale does not run a call approved after the posture changed
	// under its prompt (docs/codewhale/pipeline.md §8.1, step 4).
	now, refusal := a.policies.Snapshot(ctx, req.Workspace)
	switch {
	case refusal != "":
		return blocked(final, refusal)
	case now.Policy.Posture != snap.Policy.Posture:
		return blocked(final, fmt.Sprintf("Runtime permission posture changed while this call waited for approval (%s → %s); retry it under the current posture.",
			snap.Policy.Posture.Label(), now.Policy.Posture.Label()))
	}
	return final
}

// approvalBound is the soonest deadline the user's release and
// configuration set for an approval, if any: the card's `[approval]
// timeout_seconds` and the runtime wait `[tools] user_input_timeout_seconds`
// (docs/codewhale/releases/0.10.0.md B.8.1, B.8.2). The editor's prompt is
// both a card and an agent's API call waiting, so whichever is sooner
// denies first.
func approvalBound(snap *config.Snapshot) Bound {
	var bound Bound
	for _, b := range []struct {
		setting string
		get     func() (time.Duration, bool)
	}{
		{"[approval] timeout_seconds", snap.ApprovalTimeout},
		{"[tools] user_input_timeout_seconds", snap.RuntimeApprovalTimeout},
	} {
		if within, ok := b.get(); ok && (bound.Within == 0 || within < bound.Within) {
			bound = Bound{Within: within, Source: fmt.Sprintf("%s in %s (Codewhale %s)", b.setting, snap.Paths.Config, snap.Release.Name())}
		}
	}
	return bound
}

// persist writes the "always" rules. A failed write still approves the
// call the user approved, once, and says so.
func (a *Authorizer) persist(snap *config.Snapshot, rules []execpolicy.Rule) string {
	path := snap.Paths.Permissions
	added, err := a.grant(path, rules)
	if err != nil {
		return fmt.Sprintf("; the rule was NOT saved, so this approval counts once: %v", err)
	}
	// The watcher reports the write too, and re-checks then; the snapshot
	// must not wait for it.
	a.policies.Reload()
	if added == 0 {
		return "; the rule was already in " + path
	}
	return fmt.Sprintf("; saved %d rule(s) to %s", added, path)
}

// Final logs a final decision made for c, also one made without the
// gate (a refused request).
func (a *Authorizer) Final(req gate.Request, c Caller, d gate.Decision) gate.Decision {
	return a.log.Final(req, c, d)
}

// blocked turns an allow into a deny at the layer that allowed it.
func blocked(d gate.Decision, reason string) gate.Decision {
	d.Decision, d.Reason, d.Rule = gate.Deny, reason, nil
	d.Trace = append(d.Trace[:len(d.Trace):len(d.Trace)], gate.TraceEntry{Layer: d.Layer, Name: d.LayerName, Effect: gate.EffectDeny, Detail: reason})
	return d
}
