package diagnostics

import (
	"slices"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// FixAll merges every safe fix of one file's problems (problem.Fix.Safe: it
// changes nothing but the mistake) into one fix, leaving out each fix that
// overlaps one taken before it: the editor's source.fixAll and
// `codewhale-ls check --fix` (docs/codewhale/contract.md §2, §4) apply the
// same set. Fixes are taken in the order of their first edit, ties in the
// order of the problems, so the same problems always give the same fix.
// false when there is nothing to apply.
func FixAll(problems []problem.Problem) (problem.Fix, bool) {
	var safe []problem.Fix
	for _, p := range problems {
		for _, fix := range p.Fixes {
			if fix.Safe && len(fix.Edits) > 0 {
				safe = append(safe, fix)
			}
		}
	}
	slices.SortStableFunc(safe, func(a, b problem.Fix) int { return firstStart(a) - firstStart(b) })
	all := problem.Fix{Title: "Fix all safe problems", Safe: true}
	var taken []problem.Span
	for _, fix := range safe {
		if !overlapsAny(fix.Edits, taken) {
			all.Edits = append(all.Edits, fix.Edits...)
			for _, e := range fix.Edits {
				taken = append(taken, e.Span)
			}
		}
	}
	return all, len(all.Edits) > 0
}

func firstStart(f problem.Fix) int {
	start := f.Edits[0].Span.Start
	for _, e := range f.Edits[1:] {
		start = min(start, e.Span.Start)
	}
	return start
}

// overlapsAny: two edits overlap when they share a byte, or when both
// insert at the same offset (their order would be ambiguous).
func overlapsAny(edits []problem.Edit, taken []problem.Span) bool {
	for _, e := range edits {
		for _, t := range taken {
			if e.Span.Start < t.End && t.Start < e.Span.End || e.Span.Start == t.Start {
				return true
			}
		}
	}
	return false
}

// ApplyFix is src with fix's edits made, the last one first so that each
// edit's span still means the bytes it was computed on. The edits must not
// overlap; FixAll's and every single quick fix's do not.
func ApplyFix(src []byte, fix problem.Fix) []byte {
	edits := slices.Clone(fix.Edits)
	slices.SortStableFunc(edits, func(a, b problem.Edit) int { return b.Span.Start - a.Span.Start })
	out := slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.Span.Start], []byte(e.NewText), out[e.Span.End:])
	}
	return out
}
