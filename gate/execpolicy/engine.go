package execpolicy

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
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

	typed   []compiledRule // every typed rule, in iteration order
	byTool  map[string]*toolIndex
	trusted prefixList
	denied  denyIndex
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

// NewEngine compiles rulesets (sorted stably by layer) into an engine.
func NewEngine(rulesets []Ruleset, opts ...Option) *Engine {
	e := &Engine{rulesets: slices.Clone(rulesets), fold: HostFoldsCase()}
	for _, o := range opts {
		o(e)
	}
	e.compile()
	return e
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
	return NewEngine(append(kept, rs),
		WithLegacyPrefixes(e.legacy.trusted, e.legacy.denied), WithPathCaseFolding(e.fold))
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
	exact       string // trimmed command, for command_exact
	scope       string // normalised workspace, when scoped
	scopeOK     bool
	path        normPath
	pathOK      bool
}

func (e *Engine) addTyped(r Rule, src Source) {
	c := compiledRule{rule: r, source: src, label: r.Label(), specificity: r.Specificity()}
	if r.Workspace != nil {
		c.scope, c.scopeOK = WorkspaceScope(*r.Workspace)
	}
	if r.Path != nil {
		c.path, c.pathOK = parsePath(*r.Path, e.fold)
	}
	id := len(e.typed)
	ti := e.byTool[r.Tool]
	if ti == nil {
		ti = &toolIndex{}
		e.byTool[r.Tool] = ti
	}
	ti.hasDeny = ti.hasDeny || r.Action == Deny
	switch {
	case r.Command == nil:
		ti.anyCommand = append(ti.anyCommand, id)
	case r.CommandExact:
		c.exact = strings.TrimSpace(*r.Command)
		ti.exact.add(c.exact, id)
	default:
		ti.prefix.add(shell.NewAllowPattern(*r.Command), id)
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
