package diagnostics

import (
	"fmt"
	"slices"
	"strings"

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
	plan := PlanFixes(problems, false)
	return plan.Fix, len(plan.Fix.Edits) > 0
}

// FixPlan is what `check --fix` does to one file: the edits it writes, the
// problems they fix, and the problems with a fix it leaves, each with why.
type FixPlan struct {
	Fix   problem.Fix
	Fixed []problem.Problem
	Left  []LeftFix
}

// LeftFix is a problem whose fix a plan does not apply.
type LeftFix struct {
	Problem problem.Problem
	// Why it is left: "not safe: …" (--unsafe-fixes applies it), or that
	// its edits overlap a fix taken first (the next run applies it).
	Why string
	// Unsafe: only --unsafe-fixes would apply it.
	Unsafe bool
}

// notSafeUnsaid is why a fix not marked safe is left when its producer
// did not say: fail closed, it is not known to change only the mistake.
const notSafeUnsaid = "not checked to change only the mistake"

// PlanFixes decides which fixes of one file's problems `check --fix`
// applies: every safe one, and with unsafe (`--unsafe-fixes`, as Ruff's)
// each problem's first fix too; a fix whose edits overlap one taken before
// it is left for the next run. Fixes are taken in the order of their first
// edit, ties in the order of the problems, so the same problems always
// give the same plan. A problem with two fixes taken keeps the first.
func PlanFixes(problems []problem.Problem, unsafe bool) FixPlan {
	type candidate struct {
		fix     problem.Fix
		problem int
	}
	var candidates []candidate
	plan := FixPlan{Fix: problem.Fix{Title: "Fix all safe problems", Safe: true}}
	if unsafe {
		plan.Fix = problem.Fix{Title: "Fix all problems, unsafe fixes included"}
	}
	for i, p := range problems {
		offered := false
		for k, fix := range p.Fixes {
			if len(fix.Edits) == 0 {
				continue
			}
			offered = true
			// The first fix of a problem is its preferred one; the others
			// are alternatives (a rename or an ignore comment), never bulk.
			if fix.Safe || unsafe && k == 0 {
				candidates = append(candidates, candidate{fix, i})
			}
		}
		if offered && !slices.ContainsFunc(candidates, func(c candidate) bool { return c.problem == i }) {
			why := p.Fixes[0].WhyNotSafe
			if why == "" {
				why = notSafeUnsaid
			}
			plan.Left = append(plan.Left, LeftFix{Problem: p, Why: "not safe: " + why, Unsafe: true})
		}
	}
	slices.SortStableFunc(candidates, func(a, b candidate) int { return firstStart(a.fix) - firstStart(b.fix) })
	var taken []problem.Span
	fixed := map[int]bool{}
	for _, c := range candidates {
		if fixed[c.problem] {
			continue
		}
		if overlapsAny(c.fix.Edits, taken) {
			plan.Left = append(plan.Left, LeftFix{Problem: problems[c.problem], Why: "its edit overlaps another fix applied now; run again"})
			continue
		}
		fixed[c.problem] = true
		plan.Fix.Edits = append(plan.Fix.Edits, c.fix.Edits...)
		for _, e := range c.fix.Edits {
			taken = append(taken, e.Span)
		}
	}
	for i, p := range problems {
		if fixed[i] {
			plan.Fixed = append(plan.Fixed, p)
		}
	}
	// A problem left twice (two overlapping alternatives) is named once.
	slices.SortStableFunc(plan.Left, func(a, b LeftFix) int { return a.Problem.Span.Start - b.Problem.Span.Start })
	plan.Left = slices.CompactFunc(plan.Left, func(a, b LeftFix) bool { return a.Problem.Span == b.Problem.Span && a.Problem.Code == b.Problem.Code })
	// A problem fixed by one fix and left by an overlapping other is fixed.
	plan.Left = slices.DeleteFunc(plan.Left, func(l LeftFix) bool {
		return slices.ContainsFunc(plan.Fixed, func(p problem.Problem) bool { return p.Span == l.Problem.Span && p.Code == l.Problem.Code })
	})
	return plan
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

// Remaining is the plan with, of its left problems, only those the file
// still reports once the fixes are written: a fix can settle another
// problem too (the rules CW211's fix adds end CW204's slip), and a line
// naming it as left would be wrong. src is what the plan was made on, now
// the file's findings after; a problem is the same when its code and the
// text it points at are.
func (plan FixPlan) Remaining(src []byte, now *FileResult) FixPlan {
	textOf := func(b []byte, s problem.Span) string {
		if s.Start < 0 || s.End > len(b) || s.Start > s.End {
			return ""
		}
		return string(b[s.Start:s.End])
	}
	plan.Left = slices.DeleteFunc(slices.Clone(plan.Left), func(l LeftFix) bool {
		return now == nil || !slices.ContainsFunc(now.Problems, func(p problem.Problem) bool {
			return p.Code == l.Problem.Code && textOf(now.Src, p.Span) == textOf(src, l.Problem.Span)
		})
	})
	return plan
}

// Summary is the line `check --fix` prints for a file: what it fixed, and
// each problem it left with its line and why; "" when the file has no
// problem with a fix. unsafe: the plan was made with --unsafe-fixes.
func (plan FixPlan) Summary(path string, src []byte, unsafe bool) string {
	if len(plan.Fixed) == 0 && len(plan.Left) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fixed %s in %s", plural(len(plan.Fixed), "problem"), path)
	if len(plan.Left) == 0 {
		return b.String()
	}
	lines := problem.NewLines(src)
	fmt.Fprintf(&b, "; %d left:", len(plan.Left))
	anyUnsafe := false
	for i, l := range plan.Left {
		if i > 0 {
			b.WriteString(",")
		}
		anyUnsafe = anyUnsafe || l.Unsafe
		fmt.Fprintf(&b, " %s line %d (%s)", l.Problem.Code, lines.LineOf(l.Problem.Span.Start)+1, l.Why)
	}
	if anyUnsafe && !unsafe {
		b.WriteString("; run with --unsafe-fixes to apply the fixes that are not safe, after reading them")
	}
	return b.String()
}
