package execpolicy

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
)

// DefaultTool is the tool Codewhale checks a call without a tool name as;
// callers that have no tool name set it (Input.Tool has no default).
const DefaultTool = "exec_shell"

// Input is one authorization question (§2.3). Path nil means the call has
// no path. Tool is compared with each rule's tool byte for byte: "" is a
// name like any other, matched only by rules whose tool is "".
type Input struct {
	Command string
	Cwd     string
	Tool    string
	Path    *string
	Mode    Mode
}

// Phase is the outcome class; it fixes Allow and RequiresApproval.
type Phase int

const (
	Allowed Phase = iota
	NeedsApproval
	Forbidden
)

// String is the vector spelling: allowed|needs_approval|forbidden.
func (p Phase) String() string {
	switch p {
	case Allowed:
		return "allowed"
	case NeedsApproval:
		return "needs_approval"
	}
	return "forbidden"
}

// Result is the engine's decision. Nil pointers are Codewhale's nulls.
type Result struct {
	Phase            Phase
	Allow            bool
	RequiresApproval bool
	// MatchedAction is the typed winner's action, nil when no typed rule
	// decided (prefix matches, unmatched commands).
	MatchedAction *Action
	// MatchedRule is a typed rule's Label or a prefix verbatim.
	MatchedRule *string
	Reason      string
	// ProposedPrefixes is the suggested trusted-prefix amendment (one raw
	// first token), nil when none is proposed.
	ProposedPrefixes []string
	// RuleSource locates what MatchedRule names; ActionSource the typed
	// rule behind MatchedAction, which Reject{rules:true} reports without
	// its label.
	RuleSource   *Source
	ActionSource *Source
}

// call is the per-check state the typed-rule filter needs, computed once.
type call struct {
	tool      string
	hasPath   bool
	pathRel   string
	pathOK    bool
	cwd       normPath
	cwdOK     bool
	scope     string
	scopeOK   bool
	toolRules *toolIndex
}

// newCall is small enough to inline, which keeps Check's call off the heap.
func (e *Engine) newCall(in Input) *call {
	c := &call{}
	c.prepare(e, in)
	return c
}

func (c *call) prepare(e *Engine, in Input) {
	c.tool, c.hasPath = in.Tool, in.Path != nil
	c.toolRules = e.byTool[c.tool]
	c.scope, c.scopeOK = WorkspaceScope(in.Cwd)
	// Only the call's own path is resolved against the cwd: without one, no
	// path rule admits the call (see admits).
	if in.Path != nil {
		if c.cwd, c.cwdOK = parsePath(in.Cwd, e.fold); c.cwdOK {
			if p, ok := parsePath(*in.Path, e.fold); ok {
				c.pathRel, c.pathOK = p.relativeTo(c.cwd)
			}
		}
	}
}

// admits checks a rule's workspace and path conditions (§2.4 winner, 2 and 4).
func (c *call) admits(r *compiledRule) bool {
	if r.rule.Workspace != nil && !(r.scopeOK && c.scopeOK && r.scope == c.scope) {
		return false
	}
	if r.rule.Path == nil {
		return true
	}
	if !c.hasPath || !r.pathOK || !c.pathOK {
		return false
	}
	rel, ok := r.path.relativeTo(c.cwd)
	return ok && rel == c.pathRel
}

// winner is the highest-ranked typed rule matching the call with command;
// -1 when none matches.
func (e *Engine) winner(c *call, command string) int {
	return e.winnerFor(c, command, shell.NewAllowSubject(command))
}

// winnerFor is winner with the command's allow subject already prepared.
func (e *Engine) winnerFor(c *call, command string, subject shell.AllowSubject) int {
	ti := c.toolRules
	if ti == nil {
		return -1
	}
	best := -1
	consider := func(id int) {
		r := &e.typed[id]
		if id == best || !c.admits(r) {
			return
		}
		if best < 0 || r.outranks(&e.typed[best], id, best) {
			best = id
		}
	}
	for _, id := range ti.anyCommand {
		consider(id)
	}
	for _, id := range ti.exact[strings.TrimSpace(command)] {
		consider(id)
	}
	ti.prefix.each(subject, consider)
	return best
}

// Check decides one call (§2.5).
func (e *Engine) Check(in Input) Result {
	c := e.newCall(in)
	rawTrim := strings.TrimSpace(in.Command)
	chained := shell.Chained(in.Command)
	hasTypedDeny := c.toolRules != nil && c.toolRules.hasDeny
	var targets []string
	if len(e.denied.patterns) > 0 || hasTypedDeny {
		var buf [8]string // a plain command's targets fit, and stay on the stack
		targets = shell.AppendDenyTargets(buf[:0], in.Command)
	}

	// 1. Hard deny: nothing else is consulted.
	if id, ok := e.denied.first(targets); ok {
		p := e.denied.patterns[id]
		return Result{Phase: Forbidden, MatchedRule: &p, Reason: deniedPrefixReason(p),
			RuleSource: &e.denied.sources[id]}
	}

	// 2. Trusted candidate, for unchained commands only.
	subject := shell.NewAllowSubject(in.Command)
	trusted := -1
	if !chained {
		trusted, _ = e.trusted.first(subject)
	}

	// 3. A typed deny winning for any other deny target.
	if hasTypedDeny {
		for _, t := range targets {
			if t == rawTrim {
				continue
			}
			if id := e.winner(c, t); id >= 0 && e.typed[id].rule.Action == Deny {
				return e.typed[id].forbidden(segmentDenyReason)
			}
		}
	}

	// 4. The whole invocation's typed winner.
	w := e.winnerFor(c, in.Command, subject)
	if w >= 0 {
		r := &e.typed[w]
		switch {
		case r.rule.Action == Deny:
			return r.forbidden(invocationDenyReason)
		case r.rule.Action == Allow && !chained:
			return Result{Phase: Allowed, Allow: true, MatchedAction: ptr(Allow), MatchedRule: ptr(r.label),
				Reason: reasonAllowed, RuleSource: &r.source, ActionSource: &r.source}
		}
		// An ask, or an allow on a chained command, goes to the mode.
		return e.resolveTyped(in.Mode, r, trusted)
	}
	return e.resolveUntyped(in, chained, trusted)
}

// resolveTyped is the "W present" column of the mode table (§2.5 step 5).
func (e *Engine) resolveTyped(mode Mode, w *compiledRule, trusted int) Result {
	action := w.rule.Action
	switch {
	case mode.Kind == Never:
		return w.forbidden(typedAskNeverReason)
	case mode.Kind == Reject && mode.RejectRules:
		res := Result{Phase: Forbidden, MatchedAction: &action, Reason: reasonRejectRules, ActionSource: &w.source}
		e.reportTrusted(&res, trusted)
		return res
	}
	return Result{Phase: NeedsApproval, Allow: true, RequiresApproval: true, MatchedAction: &action,
		MatchedRule: ptr(w.label), Reason: typedAskReason(w.label),
		RuleSource: &w.source, ActionSource: &w.source}
}

// resolveUntyped is the "W absent" columns of the mode table.
func (e *Engine) resolveUntyped(in Input, chained bool, trusted int) Result {
	var res Result
	mode := in.Mode
	switch {
	case mode.Kind == Reject && mode.RejectRules:
		res = Result{Phase: Forbidden, Reason: reasonRejectRules}
	case mode.Kind == Never, mode.Kind == OnFailure,
		mode.Kind == UnlessTrusted && trusted >= 0:
		res = Result{Phase: Allowed, Allow: true, Reason: reasonAllowed}
	case trusted >= 0: // OnRequest, Reject{rules:false}
		res = Result{Phase: NeedsApproval, Allow: true, RequiresApproval: true, Reason: reasonModeRequest}
	default:
		res = Result{Phase: NeedsApproval, Allow: true, RequiresApproval: true, Reason: reasonUnmatched}
		if !chained {
			res.ProposedPrefixes = []string{firstToken(in.Command)}
		}
	}
	e.reportTrusted(&res, trusted)
	return res
}

func (e *Engine) reportTrusted(res *Result, trusted int) {
	if trusted >= 0 {
		res.MatchedRule = ptr(e.trusted.patterns[trusted])
		res.RuleSource = &e.trusted.sources[trusted]
	}
}

// forbidden reports the rule by label, with its own action.
func (r *compiledRule) forbidden(reason func(label string) string) Result {
	return Result{Phase: Forbidden, MatchedAction: ptr(r.rule.Action), MatchedRule: ptr(r.label),
		Reason: reason(r.label), RuleSource: &r.source, ActionSource: &r.source}
}

// firstToken is the amendment's raw first word ("" for an empty command).
func firstToken(command string) string {
	for f := range strings.FieldsSeq(command) {
		return f
	}
	return ""
}

func ptr[T any](v T) *T { return &v }
