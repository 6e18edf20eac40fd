package diagnostics

import (
	"slices"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// replace is a one-edit fix of src's bytes [start, end).
func replace(start, end int, text string, safe bool) problem.Fix {
	return problem.Fix{Title: text, Safe: safe, Edits: []problem.Edit{{Span: problem.Span{Start: start, End: end}, NewText: text}}}
}

func withFixes(fixes ...problem.Fix) problem.Problem {
	return problem.Problem{Code: problem.InvalidValue, Fixes: fixes}
}

// TestFixAllNeverAppliesOverlappingFixes: of two safe fixes whose edits
// share a byte, or insert at the same offset, only the one that starts
// first (on a tie, of the earlier problem) is taken; edits that only
// touch (one ends where the next starts) are both taken; unsafe and empty
// fixes never are.
func TestFixAllNeverAppliesOverlappingFixes(t *testing.T) {
	const src = "abcdefghij"
	for _, tc := range []struct {
		name     string
		problems []problem.Problem
		want     string
	}{
		{"overlapping: the earlier start wins", []problem.Problem{withFixes(replace(3, 6, "X", true)), withFixes(replace(1, 4, "Y", true))}, "aYefghij"},
		{"same span: the earlier problem wins", []problem.Problem{withFixes(replace(2, 4, "X", true)), withFixes(replace(2, 4, "Y", true))}, "abXefghij"},
		{"inside another", []problem.Problem{withFixes(replace(0, 9, "X", true)), withFixes(replace(4, 5, "Y", true))}, "Xj"},
		{"insertions at one offset", []problem.Problem{withFixes(replace(5, 5, "X", true)), withFixes(replace(5, 5, "Y", true))}, "abcdeXfghij"},
		{"touching edits both apply", []problem.Problem{withFixes(replace(2, 4, "X", true)), withFixes(replace(4, 6, "Y", true))}, "abXYghij"},
		{"a fix of two edits loses whole", []problem.Problem{withFixes(replace(1, 2, "X", true)), withFixes(problem.Fix{Safe: true, Edits: []problem.Edit{
			{Span: problem.Span{Start: 6, End: 7}, NewText: "Y"}, {Span: problem.Span{Start: 1, End: 3}, NewText: "Z"}}})}, "aXcdefghij"},
		{"unsafe fixes are left out", []problem.Problem{withFixes(replace(0, 1, "X", false), replace(2, 3, "Y", true))}, "abYdefghij"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fix, ok := FixAll(tc.problems)
			if !ok {
				t.Fatal("FixAll found nothing to apply")
			}
			if got := string(ApplyFix([]byte(src), fix)); got != tc.want {
				t.Errorf("applied %q, want %q (edits %+v)", got, tc.want, fix.Edits)
			}
			for i, a := range fix.Edits {
				for _, b := range fix.Edits[i+1:] {
					if a.Span.Start < b.Span.End && b.Span.Start < a.Span.End || a.Span.Start == b.Span.Start {
						t.Errorf("FixAll took overlapping edits %+v and %+v", a, b)
					}
				}
			}
		})
	}
	if _, ok := FixAll([]problem.Problem{withFixes(replace(0, 1, "X", false), problem.Fix{Safe: true})}); ok {
		t.Error("FixAll offers a fix with only an unsafe fix and an empty one")
	}
}

// TestApplyFixIsDeterministic: the result does not depend on the order of
// the problems' fixes among non-overlapping ones, nor on the order of the
// merged fix's edits, and src is not modified.
func TestApplyFixIsDeterministic(t *testing.T) {
	src := []byte("key1 = 1\nkey2 = 2\nkey3 = 3\n")
	orig := slices.Clone(src)
	fixes := []problem.Fix{replace(0, 4, "name1", true), replace(16, 17, "\"2\"", true), replace(18, 18, "# note\n", true)}
	want := "name1 = 1\nkey2 = \"2\"\n# note\nkey3 = 3\n"
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
		var problems []problem.Problem
		for _, i := range order {
			problems = append(problems, withFixes(fixes[i]))
		}
		fix, _ := FixAll(problems)
		if got := string(ApplyFix(src, fix)); got != want {
			t.Errorf("order %v: %q, want %q", order, got, want)
		}
		slices.Reverse(fix.Edits)
		if got := string(ApplyFix(src, fix)); got != want {
			t.Errorf("order %v, edits reversed: %q, want %q", order, got, want)
		}
	}
	if !slices.Equal(src, orig) {
		t.Errorf("ApplyFix changed its input: %q", src)
	}
}

// TestPlanFixesSaysWhatItLeft (issue 24, point 5): check --fix applies the
// safe fixes and names each problem it leaves, on its line, with why: not
// safe (with the producer's reason, or, unsaid, that it is not checked),
// or overlapping a fix applied now; --unsafe-fixes applies each problem's
// preferred fix too, and nothing is then left as unsafe.
func TestPlanFixesSaysWhatItLeft(t *testing.T) {
	src := []byte("one\ntwo\nthree\nfour\n")
	guess := replace(4, 7, "TWO", false)
	guess.WhyNotSafe = "a guess"
	problems := []problem.Problem{
		{Code: problem.InvalidValue, Span: problem.Span{Start: 0, End: 3}, Fixes: []problem.Fix{replace(0, 3, "ONE", true)}},
		{Code: problem.UnknownKey, Span: problem.Span{Start: 4, End: 7}, Fixes: []problem.Fix{guess}},
		{Code: problem.ToolNeverEvaluated, Span: problem.Span{Start: 8, End: 13}, Fixes: []problem.Fix{replace(8, 13, "THREE", false)}},
		{Code: problem.RuleDuplicate, Span: problem.Span{Start: 0, End: 2}, Fixes: []problem.Fix{replace(0, 2, "ON", true)}},
		{Code: problem.AllowRedirections, Span: problem.Span{Start: 14, End: 18}},
	}
	plan := PlanFixes(problems, false)
	if got := string(ApplyFix(src, plan.Fix)); got != "ONE\ntwo\nthree\nfour\n" {
		t.Errorf("safe plan wrote %q", got)
	}
	want := "fixed 1 problem in f.toml; 3 left: CW201 line 1 (its edit overlaps another fix applied now; run again), CW002 line 2 (not safe: a guess), CW208 line 3 (not safe: not checked to change only the mistake); run with --unsafe-fixes to apply the fixes that are not safe, after reading them"
	if got := plan.Summary("f.toml", src, false); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	plan = PlanFixes(problems, true)
	if got := string(ApplyFix(src, plan.Fix)); got != "ONE\nTWO\nTHREE\nfour\n" {
		t.Errorf("unsafe plan wrote %q", got)
	}
	if got, want := plan.Summary("f.toml", src, true), "fixed 3 problems in f.toml; 1 left: CW201 line 1 (its edit overlaps another fix applied now; run again)"; got != want {
		t.Errorf("summary with --unsafe-fixes\n%s\nwant\n%s", got, want)
	}
	if got := PlanFixes(problems[4:], false).Summary("f.toml", src, false); got != "" {
		t.Errorf("a file without fixes says %q", got)
	}
}
