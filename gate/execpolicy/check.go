package execpolicy

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
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
	// Changes are the release changes (docs/codewhale/releases/) that made
	// this outcome differ from the oldest implemented release's; nil when
	// it is the same.
	Changes []release.Change
}

// call is the per-check state the typed-rule filter needs, computed once.
type call struct {
	tool    string
	hasPath bool
	pathRel string
	pathOK  bool
	cwd     normPath
	cwdOK   bool
	// cwdText is the cwd as given; scope is its WorkspaceScope, worked
	// out the first time a workspace-scoped rule is met (scoped).
	cwdText   string
	scope     string
	scopeOK   bool
	scopeDone bool
	toolRules *toolIndex
	// rooted is the call path's rooted form (0.10.0.md A.2.2); dotDot: it
	// has a `..` component; dotDotMeets: the release lets the path meet
	// deny and ask path rules because the path as given, untrimmed, has a
	// `..` component (0.10.1.md N8).
	rooted      string
	dotDot      bool
	dotDotMeets bool
	// fired are the release changes whose branches shaped the outcome;
	// lostTarget: the oldest release had a deny target this one lacks.
	fired      []release.Change
	lostTarget bool
	// lostLater holds, for a line of many deny targets, the command and
	// a copy of its targets, for lostTarget to be found only if it is
	// asked (lost), which is when no change fired: the oldest release's
	// targets of a long line are a second reading of all of it.
	lostLater *lostTargetQuestion
}

type lostTargetQuestion struct {
	command string
	targets []string
}

// lost is lostTarget, answering a deferred question first.
func (c *call) lost() bool {
	if q := c.lostLater; q != nil {
		c.lostTarget, c.lostLater = lostTarget(q.command, q.targets), nil
	}
	return c.lostTarget
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
	c.cwdText = in.Cwd
	// Only the call's own path is resolved against the cwd: without one, no
	// path rule admits the call (see admits).
	if in.Path != nil {
		if c.cwd, c.cwdOK = parsePath(in.Cwd, e.fold); c.cwdOK {
			if p, ok := parsePath(*in.Path, e.fold); ok {
				c.pathRel, c.pathOK = p.relativeTo(c.cwd)
			}
		}
		if e.has.rootedPaths {
			c.rooted, _ = RootedPath(*in.Path, e.fold)
			c.dotDot = HasDotDot(c.rooted)
			// Codewhale 0.10.1 splits the untrimmed path here, so " ../x"
			// and "sub/.. " hold no `..` part and meet no rule this way: it
			// fails open, and we do too (docs/architecture.md, "Where
			// Codewhale fails open, reproduced").
			c.dotDotMeets = e.has.dotDotPaths && HasDotDot(strings.ReplaceAll(*in.Path, `\`, "/"))
		}
	}
}

// scoped reports whether the cwd has a workspace scope, which it then
// holds in c.scope. Most checks meet no workspace-scoped candidate.
func (c *call) scoped() bool {
	if !c.scopeDone {
		c.scope, c.scopeOK = WorkspaceScope(c.cwdText)
		c.scopeDone = true
	}
	return c.scopeOK
}

func (c *call) fire(change release.Change) {
	if !slices.Contains(c.fired, change) {
		c.fired = append(c.fired, change)
	}
}

// admission is how a rule's path condition admitted a call.
type admission int

const (
	notAdmitted admission = iota
	admitted
	admittedRooted // by the rooted channel (0.10.0.md A.2.2)
	admittedDotDot // by a `..` call path (0.10.1.md N8)
)

// change is the release change behind an admission, if any.
func (a admission) change() (release.Change, bool) {
	switch a {
	case admittedRooted:
		return release.RootedPathRules, true
	case admittedDotDot:
		return release.DotDotPathsMeetDeny, true
	}
	return release.Change{}, false
}

// admits checks a rule's workspace and path conditions (§2.4 winner, 2 and
// 4): from 0.10.1 a call path with `..` meets every deny and ask path rule;
// a `~/…` rule path matches by the rooted channel only, any other by the
// workspace-relative comparison or, when rooted, that channel.
func (c *call) admits(r *compiledRule) admission {
	if r.rule.Workspace != nil && !(r.scopeOK && c.scoped() && r.scope == c.scope) {
		return notAdmitted
	}
	if r.rule.Path == nil {
		return admitted
	}
	if !c.hasPath {
		return notAdmitted
	}
	if c.dotDotMeets && r.rule.Action != Allow {
		return admittedDotDot
	}
	if !r.rootedOnly && r.pathOK && c.pathOK {
		if rel, ok := r.path.relativeTo(c.cwd); ok && rel == c.pathRel {
			return admitted
		}
	}
	if r.rootedOK && !c.dotDot && c.rooted == r.rooted {
		return admittedRooted
	}
	return notAdmitted
}

// typedMatch is a typed winner: its id (-1 for none), how its path
// condition admitted the call, and whether only the deny matcher matched
// its command (0.10.1.md N3).
type typedMatch struct {
	id       int
	how      admission
	denyOnly bool
}

// winner is the highest-ranked typed rule matching the call with command.
func (e *Engine) winner(c *call, command string) typedMatch {
	return e.winnerFor(c, command, e.dialect.AllowSubject(command))
}

// winnerFor is winner with the command's allow subject already prepared.
func (e *Engine) winnerFor(c *call, command string, subject shell.AllowSubject) typedMatch {
	best := typedMatch{id: -1}
	ti := c.toolRules
	if ti == nil {
		return best
	}
	consider := func(id int, denyOnly bool) {
		if id == best.id {
			best.denyOnly = best.denyOnly && denyOnly
			return
		}
		r := &e.typed[id]
		how := c.admits(r)
		if how == notAdmitted {
			return
		}
		if best.id < 0 || r.outranks(&e.typed[best.id], id, best.id) {
			best = typedMatch{id: id, how: how, denyOnly: denyOnly}
		}
	}
	for _, id := range ti.anyCommand {
		consider(id, false)
	}
	for _, id := range ti.exact[shell.ExactKey(command)] {
		consider(id, false)
	}
	ti.prefix.each(subject, func(id int) { consider(id, false) })
	if ti.prefix.classWithheld(subject) {
		c.fire(release.PrefixGrantEligibility)
	}
	if len(ti.denyIDs) > 0 {
		ti.denyPrefix.each(command, func(pos int) { consider(ti.denyIDs[pos], true) })
	}
	return best
}

// fireTyped records the changes that let a deciding typed rule match.
func (c *call) fireTyped(m typedMatch) {
	if change, ok := m.how.change(); ok {
		c.fire(change)
	}
	if m.denyOnly {
		c.fire(release.TypedDenyMatcher)
	}
}

// Check decides one call (§2.5) as the engine's release does; for a newer
// release than the oldest, Result.Changes names what made the outcome
// differ from the oldest release's.
func (e *Engine) Check(in Input) Result {
	c := e.newCall(in)
	res := e.check(c, in)
	if oldest := e.asOldest(); oldest != e && c.mayDiffer() {
		if base := oldest.Check(in); !sameOutcome(res, base) {
			res.Changes = e.changesAgainst(c, base)
		}
	}
	return res
}

// mayDiffer reports a check whose outcome the oldest release may not
// share: a change's branch took part, the oldest release had a deny target
// this one lacks, or a `~/…` path rule, which the oldest release also
// matched relatively, applied to the call's tool. Any other check is
// decided by the code every release shares.
func (c *call) mayDiffer() bool {
	return len(c.fired) > 0 || c.lost() || c.toolRules != nil && c.toolRules.hasRootedOnly
}

// changesAgainst names the changes behind an outcome that differs from
// base, the oldest release's: those whose branches took part, else a `~/…`
// rule that decided base and no longer matches a relative path (A.2.2),
// else a deny target the oldest release found and this one lacks (heredoc
// data, quoted text: A.2.3, or the 0.10.1 rewrite's reading, N9).
func (e *Engine) changesAgainst(c *call, base Result) []release.Change {
	if len(c.fired) > 0 {
		return c.fired
	}
	if src := base.ActionSource; src != nil && src.Kind == TypedRule {
		if p := e.rulesets[src.Ruleset].Typed[src.Index].Path; p != nil {
			if form, _ := RootedPath(*p, e.fold); strings.HasPrefix(form, "~/") {
				return []release.Change{release.RootedPathRules}
			}
		}
	}
	if e.has.expanderRewrite && !c.lost() {
		return []release.Change{release.ExpanderRewrite}
	}
	return []release.Change{release.DenyTargetsFromExpander}
}

// sameOutcome compares what a caller sees of two results.
func sameOutcome(a, b Result) bool {
	return a.Phase == b.Phase && a.Reason == b.Reason && equalPtr(a.MatchedRule, b.MatchedRule) &&
		equalPtr(a.MatchedAction, b.MatchedAction) && slices.Equal(a.ProposedPrefixes, b.ProposedPrefixes)
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// chainedAs is whether release r counts command as chained: the naive
// segmenter before 0.10.1, the expander's control flag from it
// (docs/codewhale/releases/0.10.1.md N6).
func chainedAs(has behaviour, command string, x shell.Expansion) bool {
	if has.controlChain {
		return x.Control
	}
	return shell.Chained(command)
}

// denyTargets appends the texts release r matches deny rules against:
// 0.9.10's trimmed command, naive segments and expander lines; from 0.10.0
// the expander's commands only (0.10.0.md A.2.3); from 0.10.1 those and
// the trimmed command when not among them (0.10.1.md N2).
func denyTargets(dst []string, has behaviour, command string, x shell.Expansion) []string {
	if !has.expanderTargets {
		return shell.AppendDenyTargets(dst, command)
	}
	start := len(dst)
	dst = append(dst, x.Commands...)
	if raw := strings.TrimSpace(command); raw != "" && has.rawTextTarget && !slices.Contains(dst[start:], raw) {
		dst = append(dst, raw)
	}
	return dst
}

// check is Check without the comparison with the oldest release.
func (e *Engine) check(c *call, in Input) Result {
	has := e.has
	rawTrim := strings.TrimSpace(in.Command)
	var x shell.Expansion
	if has.expanderTargets {
		x = shell.ExpandAs(e.release, in.Command)
	}
	naiveChained := shell.Chained(in.Command)
	chained := chainedAs(has, in.Command, x)
	eligible := !has.grantEligibility || x.PrefixGrantEligible
	hasTypedDeny := c.toolRules != nil && c.toolRules.hasDeny
	var targets []string
	if len(e.denied.patterns) > 0 || hasTypedDeny {
		var buf [8]string // a plain command's targets fit, and stay on the stack
		targets = denyTargets(buf[:0], has, in.Command, x)
		switch {
		case !has.expanderTargets:
		case len(targets) > 16:
			c.lostLater = &lostTargetQuestion{in.Command, slices.Clone(targets)}
		default:
			c.lostTarget = lostTarget(in.Command, targets)
		}
	}

	// 1. Hard deny: nothing else is consulted.
	if id, t := e.denied.first(targets); id >= 0 {
		e.fireDenyHit(c, e.denied.tokens[id], targets[t], in.Command)
		p := e.denied.patterns[id]
		return Result{Phase: Forbidden, MatchedRule: &p, Reason: deniedPrefixReason(p),
			RuleSource: &e.denied.sources[id]}
	}

	// 2. From 0.10.1, with deny rules in force a command whose words are
	// known only at run time is refused, or asked where the mode prompts
	// (0.10.1.md N1).
	if x.Dynamic && has.runTimeWords && (len(e.denied.patterns) > 0 || hasTypedDeny) {
		c.fire(release.RunTimeWordsRefused)
		if in.Mode.Kind == UnlessTrusted || in.Mode.Kind == OnRequest {
			return Result{Phase: NeedsApproval, Allow: true, RequiresApproval: true, Reason: reasonRunTimeWords}
		}
		return Result{Phase: Forbidden, MatchedAction: ptr(Deny), Reason: reasonRunTimeWords}
	}

	// 3. Trusted candidate, for unchained commands only, and from 0.10.1
	// only those a prefix may cover (0.10.1.md N5).
	subject := e.dialect.AllowSubject(in.Command)
	trusted := -1
	if !chained && eligible {
		if trusted, _ = e.trusted.first(subject); trusted >= 0 && naiveChained {
			c.fire(release.ControlFlagChain) // granted now, withheld by the naive chain test before
		}
	} else if !naiveChained {
		if withheld, _ := e.trusted.first(subject); withheld >= 0 {
			c.fire(grantChange(chained))
		}
	}
	if e.trusted.index.classWithheld(subject) {
		c.fire(release.PrefixGrantEligibility)
	}
	if e.dialect.PythonModule && strings.Contains(subject.Class, " -m") {
		c.fire(release.PythonModuleClass)
	}

	// 4. A typed deny winning for any other deny target; from 0.10.1 also
	// for each target with its command word's directory dropped
	// (0.10.1.md N3).
	if hasTypedDeny {
		for _, t := range targets {
			if t != rawTrim {
				if res, ok := e.segmentDeny(c, t); ok {
					e.fireNewTarget(c, t, in.Command)
					return res
				}
			}
		}
		if has.typedDenyMatcher {
			for _, t := range targets {
				if folded, ok := shell.FoldCommandWordPath(t); ok && folded != rawTrim {
					if res, ok := e.segmentDeny(c, folded); ok {
						c.fire(release.TypedDenyMatcher)
						return res
					}
				}
			}
		}
	}

	// 5. The whole invocation's typed winner.
	w := e.winnerFor(c, in.Command, subject)
	if w.id >= 0 {
		rule := &e.typed[w.id]
		c.fireTyped(w)
		switch {
		case rule.rule.Action == Deny:
			return rule.forbidden(invocationDenyReason)
		case rule.rule.Action == Allow && e.allowApplies(c, rule, in, x, eligible, naiveChained):
			return Result{Phase: Allowed, Allow: true, MatchedAction: ptr(Allow), MatchedRule: ptr(rule.label),
				Reason: reasonAllowed, RuleSource: &rule.source, ActionSource: &rule.source}
		}
		// An ask, or an allow that does not apply, goes to the mode.
		return e.resolveTyped(in.Mode, rule, trusted)
	}

	// 6. The mode; from 0.10.1 an amendment is proposed only for a
	// command a prefix may cover (0.10.1.md N7).
	proposes := !chained
	if has.amendments {
		if proposes = eligible; proposes == naiveChained {
			c.fire(release.AmendmentEligibility)
		}
	}
	return e.resolveUntyped(in, proposes, trusted)
}

// grantChange is the change that kept a prefix grant from a command: the
// control flag's chain test (0.10.1.md N6), else prefix-grant eligibility
// (N5).
func grantChange(chainTest bool) release.Change {
	if chainTest {
		return release.ControlFlagChain
	}
	return release.PrefixGrantEligibility
}

// allowApplies is whether a winning typed allow allows: on an unchained
// command before 0.10.1; from 0.10.1 a file tool's path-only grant always,
// any other only on a command without control operators that is exact or
// prefix-grant eligible (0.10.1.md N5, N6). An allow that does not apply
// is asked like an ask rule.
func (e *Engine) allowApplies(c *call, rule *compiledRule, in Input, x shell.Expansion, eligible, naiveChained bool) bool {
	if !e.has.grantEligibility {
		return !chainedAs(e.has, in.Command, x)
	}
	if in.Tool != DefaultTool && rule.rule.Command == nil && in.Command == "" {
		return true
	}
	applies := !x.Control && (rule.rule.CommandExact || eligible)
	if applies == naiveChained {
		c.fire(grantChange(x.Control != naiveChained))
	}
	return applies
}

// segmentDeny is step 4 for one target: a typed deny winning for it.
func (e *Engine) segmentDeny(c *call, target string) (Result, bool) {
	m := e.winner(c, target)
	if m.id < 0 || e.typed[m.id].rule.Action != Deny {
		return Result{}, false
	}
	c.fireTyped(m)
	return e.typed[m.id].forbidden(segmentDenyReason), true
}

// fireDenyHit records the changes a deny prefix's hit on target needed:
// the wildcard, options after positionals, and a target the oldest release
// would not have matched.
func (e *Engine) fireDenyHit(c *call, rule []string, target, command string) {
	if !e.has.expanderTargets {
		return
	}
	tokens := shell.DenyTokens(target)
	without := e.dialect
	without.Wildcard = false
	if e.dialect.Wildcard && !without.DenyMatchTokens(rule, tokens) {
		c.fire(release.DenyWildcard)
	}
	without = e.dialect
	without.OptionsAnywhere = false
	if e.dialect.OptionsAnywhere && !without.DenyMatchTokens(rule, tokens) {
		c.fire(release.DenyOptionsAnywhere)
	}
	e.fireNewTarget(c, target, command)
}

// fireNewTarget records the expander change behind a deny target the
// oldest release did not have.
func (e *Engine) fireNewTarget(c *call, target, command string) {
	if !e.has.expanderTargets || slices.Contains(shell.DenyTargets(command), target) {
		return
	}
	if e.has.expanderRewrite {
		c.fire(release.ExpanderRewrite)
	} else {
		c.fire(release.DenyTargetsFromExpander)
	}
}

// lostTarget reports a deny target of the oldest release's (naive
// segments, heredoc lines) that is not among targets.
func lostTarget(command string, targets []string) bool {
	var buf [8]string
	naive := shell.AppendDenyTargets(buf[:0], command)
	if len(naive) <= 16 || len(targets) <= 16 {
		for _, t := range naive {
			if !slices.Contains(targets, t) {
				return true
			}
		}
		return false
	}
	// A line of many commands: a set, not a scan of targets per target
	// (100k segments would compare billions of strings).
	set := make(map[string]struct{}, len(targets))
	for _, t := range targets {
		set[t] = struct{}{}
	}
	for _, t := range naive {
		if _, ok := set[t]; !ok {
			return true
		}
	}
	return false
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
func (e *Engine) resolveUntyped(in Input, proposes bool, trusted int) Result {
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
		if proposes {
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
