package diagnostics

import (
	"sort"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
)

// ruleIndex finds, for one rule, the few rules that could duplicate or
// cover it, so the pairwise lints stay linear in the size of the file.
type ruleIndex struct {
	records map[record]int // record → first rule with it
	byTool  map[string]*toolRules
	// dialect classifies an exact rule's command as the release does, so
	// the candidates hold every non-exact rule covers may find.
	dialect shell.Dialect
}

type toolRules struct {
	noCommand []int
	// starDenies are the non-exact denies with a `*` word, which may
	// cover commands their words do not start (typedDenyCovers).
	starDenies []int
	nonExact   map[string][]int // lower(trim(command)), and its whitespace-collapsed form
	exact      map[string][]int // trim(command)
}

func newRuleIndex(rules []execpolicy.FileRule, dialect shell.Dialect) *ruleIndex {
	x := &ruleIndex{records: make(map[record]int, len(rules)), byTool: map[string]*toolRules{}, dialect: dialect}
	for i, fr := range rules {
		r := fr.Rule
		if _, seen := x.records[recordOf(r)]; !seen {
			x.records[recordOf(r)] = i
		}
		t := x.byTool[r.Tool]
		if t == nil {
			t = &toolRules{nonExact: map[string][]int{}, exact: map[string][]int{}}
			x.byTool[r.Tool] = t
		}
		switch {
		case r.Command == nil:
			t.noCommand = append(t.noCommand, i)
		case r.CommandExact:
			k := strings.TrimSpace(*r.Command)
			t.exact[k] = append(t.exact[k], i)
		default:
			if r.Action == execpolicy.Deny && hasStarWord(*r.Command) {
				t.starDenies = append(t.starDenies, i)
			}
			k := ascii.Lower(strings.TrimSpace(*r.Command))
			t.nonExact[k] = append(t.nonExact[k], i)
			if c := strings.Join(strings.Fields(k), " "); c != k {
				t.nonExact[c] = append(t.nonExact[c], i)
			}
		}
	}
	return x
}

// record holds the six fields of a rule, presence included: two records
// are equal exactly when execpolicy.SameRecord is.
type record struct {
	tool                                  string
	command, path, workspace              string
	hasCommand, hasPath, hasWorkspace, ex bool
	action                                execpolicy.Action
}

func recordOf(r execpolicy.Rule) record {
	rec := record{tool: r.Tool, ex: r.CommandExact, action: r.Action}
	if r.Command != nil {
		rec.command, rec.hasCommand = *r.Command, true
	}
	if r.Path != nil {
		rec.path, rec.hasPath = *r.Path, true
	}
	if r.Workspace != nil {
		rec.workspace, rec.hasWorkspace = *r.Workspace, true
	}
	return rec
}

// firstSame is the first rule identical to rules[i] before it, if any.
func (x *ruleIndex) firstSame(r execpolicy.Rule, i int) (int, bool) {
	j, ok := x.records[recordOf(r)]
	return j, ok && j < i
}

// coverCandidates are, in file order, the rules whose command could cover
// r's (a superset of those for which coversCommand holds).
func (x *ruleIndex) coverCandidates(r execpolicy.Rule) []int {
	t := x.byTool[r.Tool]
	if t == nil {
		return nil
	}
	out := append([]int(nil), t.noCommand...)
	if r.Command != nil {
		out = append(out, t.starDenies...)
		trimmed := strings.TrimSpace(*r.Command)
		if r.CommandExact {
			out = append(out, t.exact[trimmed]...)
			// A non-exact W covers an exact r when allowMatch(W, r): its
			// pattern is r's arity class or a word prefix of r.
			words := strings.Fields(ascii.Lower(trimmed))
			for n := 1; n <= len(words); n++ {
				out = append(out, t.nonExact[strings.Join(words[:n], " ")]...)
			}
			out = append(out, t.nonExact[x.dialect.Classify(trimmed)]...)
		} else {
			out = append(out, t.nonExact[ascii.Lower(trimmed)]...)
			// A non-exact W whose words r's are, or continue, covers it
			// too (prefixCovers).
			words := strings.Fields(ascii.Lower(trimmed))
			for n := 1; n <= len(words); n++ {
				out = append(out, t.nonExact[strings.Join(words[:n], " ")]...)
			}
		}
	}
	sort.Ints(out)
	return out
}
