package execpolicy

import (
	"slices"
	"strings"
	"sync"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Engine is an immutable, compiled policy: rulesets in ascending layer
// order (stable), then the legacy flat prefix lists, which act like one more
// prefix-only set after every ruleset. Build it with NewEngine; it is safe
// for concurrent Checks.
type Engine struct {
	rulesets []Ruleset // as given, so Source.Ruleset indexes them
	order    []int     // ruleset positions in evaluation (stable layer) order
	legacy   legacyPrefixes
	fold     bool
	// release is the Codewhale release whose engine this one reproduces;
	// dialect is how its matchers read rules.
	release release.Release
	has     behaviour
	dialect shell.Dialect

	typed   []compiledRule // every typed rule, in iteration order
	byTool  map[string]*toolIndex
	trusted prefixList
	denied  denyIndex

	// oldest is this engine as the oldest implemented release, compiled
	// on first use, to tell which outcomes a newer release changed.
	oldest     *Engine
	oldestOnce sync.Once
}

type legacyPrefixes struct{ trusted, denied []string }

// Option configures NewEngine.
type Option func(*Engine)

// WithLegacyPrefixes adds the legacy constructor's flat trusted and denied
// prefix lists, consulted after every ruleset's.
func WithLegacyPrefixes(trusted, denied []string) Option {
	return func(e *Engine) {
		e.legacy = legacyPrefixes{trusted: slices.Clone(trusted), denied: slices.Clone(denied)}
	}
}

// WithPathCaseFolding overrides the host default (HostFoldsCase) for path
// rules, e.g. to reproduce a Linux build's verdicts on macOS.
func WithPathCaseFolding(fold bool) Option {
	return func(e *Engine) { e.fold = fold }
}

// WithRelease makes the engine decide as Codewhale release r does; without
// it the engine is the oldest implemented release's (0.9.10).
func WithRelease(r release.Release) Option {
	return func(e *Engine) { e.release = r }
}

// NewEngine compiles rulesets (sorted stably by layer) into an engine.
func NewEngine(rulesets []Ruleset, opts ...Option) *Engine {
	e := &Engine{rulesets: slices.Clone(rulesets), fold: HostFoldsCase()}
	for _, o := range opts {
		o(e)
	}
	e.has = behaviourOf(e.release)
	e.dialect = shell.DialectOf(e.release)
	e.compile()
	return e
}

// behaviour is which of the engine's changes (gate/release) a release
// has, worked out once, since Release.Has compares versions.
type behaviour struct {
	rootedPaths      bool // 0.10.0.md A.2.2
	expanderTargets  bool // 0.10.0.md A.2.3
	runTimeWords     bool // 0.10.1.md N1
	rawTextTarget    bool // N2
	typedDenyMatcher bool // N3
	grantEligibility bool // N5
	controlChain     bool // N6
	amendments       bool // N7
	dotDotPaths      bool // N8
	expanderRewrite  bool // N9
	taskShellRules   bool // D.6
}

func behaviourOf(r release.Release) behaviour {
	return behaviour{
		rootedPaths:      r.Has(release.RootedPathRules),
		expanderTargets:  r.Has(release.DenyTargetsFromExpander),
		runTimeWords:     r.Has(release.RunTimeWordsRefused),
		rawTextTarget:    r.Has(release.RawTextDenyTarget),
		typedDenyMatcher: r.Has(release.TypedDenyMatcher),
		grantEligibility: r.Has(release.PrefixGrantEligibility),
		controlChain:     r.Has(release.ControlFlagChain),
		amendments:       r.Has(release.AmendmentEligibility),
		dotDotPaths:      r.Has(release.DotDotPathsMeetDeny),
		expanderRewrite:  r.Has(release.ExpanderRewrite),
		taskShellRules:   r.Has(release.TaskShellRules),
	}
}

// asOldest is the engine as the oldest implemented release decides.
func (e *Engine) asOldest() *Engine {
	if e.release.Name() == release.Oldest().Version {
		return e
	}
	e.oldestOnce.Do(func() { e.oldest = e.with(e.rulesets, release.Oldest()) })
	return e.oldest
}

// with is a new engine with e's options, rulesets and release r.
func (e *Engine) with(rulesets []Ruleset, r release.Release) *Engine {
	return NewEngine(rulesets, WithLegacyPrefixes(e.legacy.trusted, e.legacy.denied),
		WithPathCaseFolding(e.fold), WithRelease(r))
}

// NewEngineFromFile is the production engine: the file's single User
// ruleset, or no ruleset at all for an empty (or rejected) file.
func NewEngineFromFile(f *File, opts ...Option) *Engine {
	var rulesets []Ruleset
	if f != nil && f.Accepted && len(f.Rules) > 0 {
		rulesets = []Ruleset{CompileRules(f.RuleValues())}
	}
	return NewEngine(rulesets, opts...)
}

// WithRuleset returns a new engine in which rs replaces every ruleset of its
// layer (set_ruleset).
func (e *Engine) WithRuleset(rs Ruleset) *Engine {
	kept := slices.DeleteFunc(slices.Clone(e.rulesets), func(r Ruleset) bool { return r.Layer == rs.Layer })
	return e.with(append(kept, rs), e.release)
}

// Rulesets returns the engine's rulesets in evaluation order.
func (e *Engine) Rulesets() []Ruleset {
	out := make([]Ruleset, len(e.order))
	for i, ri := range e.order {
		out[i] = e.rulesets[ri]
	}
	return out
}

func (e *Engine) compile() {
	e.order = make([]int, len(e.rulesets))
	for i := range e.order {
		e.order[i] = i
	}
	slices.SortStableFunc(e.order, func(a, b int) int { return int(e.rulesets[a].Layer) - int(e.rulesets[b].Layer) })

	e.byTool = map[string]*toolIndex{}
	e.denied.dialect = e.dialect
	for _, ri := range e.order {
		rs := e.rulesets[ri]
		for i, p := range rs.TrustedPrefixes {
			e.trusted.add(p, Source{Kind: TrustedPrefix, Layer: rs.Layer, Ruleset: ri, Index: i})
		}
		for i, p := range rs.DeniedPrefixes {
			e.denied.add(p, Source{Kind: DeniedPrefix, Layer: rs.Layer, Ruleset: ri, Index: i})
		}
		for i, r := range rs.Typed {
			e.addTyped(r, Source{Kind: TypedRule, Layer: rs.Layer, Ruleset: ri, Index: i})
		}
	}
	for i, p := range e.legacy.trusted {
		e.trusted.add(p, Source{Kind: TrustedPrefix, Layer: User, Ruleset: LegacyRuleset, Index: i})
	}
	for i, p := range e.legacy.denied {
		e.denied.add(p, Source{Kind: DeniedPrefix, Layer: User, Ruleset: LegacyRuleset, Index: i})
	}
}

// compiledRule is a typed rule with everything that does not depend on the
// call worked out once.
type compiledRule struct {
	rule        Rule
	source      Source
	label       string
	specificity int
	exact       string // shell.ExactKey of the command, for command_exact
	scope       string // normalised workspace, when scoped
	scopeOK     bool
	path        normPath
	pathOK      bool
	// rooted is the rule path as the rooted channel compares it, when the
	// release has the channel and the path is rooted without `..`
	// (docs/codewhale/releases/0.10.0.md A.2.2); rootedOnly: a `~/…` path,
	// which matches through that channel alone.
	rooted     string
	rootedOK   bool
	rootedOnly bool
}

func (e *Engine) addTyped(r Rule, src Source) {
	c := compiledRule{rule: r, source: src, label: r.Label(), specificity: r.Specificity()}
	if r.Workspace != nil {
		c.scope, c.scopeOK = WorkspaceScope(*r.Workspace)
	}
	if r.Path != nil {
		c.path, c.pathOK = parsePath(*r.Path, e.fold)
		if e.has.rootedPaths {
			var rooted bool
			c.rooted, rooted = RootedPath(*r.Path, e.fold)
			c.rootedOK = rooted && !HasDotDot(c.rooted)
			c.rootedOnly = strings.HasPrefix(c.rooted, "~/")
		}
	}
	id := len(e.typed)
	ti := e.byTool[r.Tool]
	if ti == nil {
		ti = &toolIndex{}
		e.byTool[r.Tool] = ti
	}
	ti.hasDeny = ti.hasDeny || r.Action == Deny
	ti.hasRootedOnly = ti.hasRootedOnly || c.rootedOnly
	switch {
	case r.Command == nil:
		ti.anyCommand = append(ti.anyCommand, id)
	case r.CommandExact:
		c.exact = shell.ExactKey(*r.Command)
		ti.exact.add(c.exact, id)
	default:
		ti.prefix.add(shell.NewAllowPattern(*r.Command), id)
		if r.Action == Deny && e.has.typedDenyMatcher {
			// 0.10.1.md N3: a typed deny also matches as a deny prefix.
			ti.denyPrefix.dialect = e.dialect
			ti.denyPrefix.add(*r.Command, src)
			ti.denyIDs = append(ti.denyIDs, id)
		}
	}
	e.typed = append(e.typed, c)
}

// outranks orders typed rules by (layer, action, specificity); on a full tie
// the later rule wins, which iteration order (the id) expresses.
func (c *compiledRule) outranks(other *compiledRule, id, otherID int) bool {
	if c.source.Layer != other.source.Layer {
		return c.source.Layer > other.source.Layer
	}
	if c.rule.Action != other.rule.Action {
		return c.rule.Action > other.rule.Action
	}
	if c.specificity != other.specificity {
		return c.specificity > other.specificity
	}
	return id > otherID
}
