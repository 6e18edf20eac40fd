package shellsafety

import (
	"slices"
	"sync"
	"testing"
)

// commandAgrees reports how Parse(s) answers differently from the
// functions of the same names, which read s afresh each time.
func commandAgrees(t *testing.T, s string) {
	t.Helper()
	c := Parse(s)
	if c.Text() != s {
		t.Errorf("Parse(%q).Text() = %q", s, c.Text())
	}
	if got, want := c.ReadOnly(), ReadOnly(s); got != want {
		t.Errorf("Parse(%q).ReadOnly() = %v, ReadOnly %v", s, got, want)
	}
	if got, want := c.Analyze(), Analyze(s); got != want {
		t.Errorf("Parse(%q).Analyze() = %v, Analyze %v", s, got, want)
	}
	if got, want := c.PublishLike(), PublishLike(s); got != want {
		t.Errorf("Parse(%q).PublishLike() = %v, PublishLike %v", s, got, want)
	}
	if got, want := c.DestructiveLike(), DestructiveLike(s); got != want {
		t.Errorf("Parse(%q).DestructiveLike() = %v, DestructiveLike %v", s, got, want)
	}
	if got, want := c.RoutineAutoReview(), RoutineAutoReview(s); got != want {
		t.Errorf("Parse(%q).RoutineAutoReview() = %v, RoutineAutoReview %v", s, got, want)
	}
	var texts []string
	for _, seg := range c.Segments() {
		texts = append(texts, seg.Text())
		if len(seg.Segments()) != 1 || seg.Segments()[0] != seg {
			t.Errorf("Parse(%q): segment %q is not its own only segment", s, seg.Text())
		}
		if seg.PublishLike() != PublishLike(seg.Text()) || seg.DestructiveLike() != DestructiveLike(seg.Text()) ||
			seg.Analyze() != Analyze(seg.Text()) || seg.ReadOnly() != ReadOnly(seg.Text()) {
			t.Errorf("Parse(%q): segment %q answers differently from the functions", s, seg.Text())
		}
	}
	if want := Segments(s); !slices.Equal(texts, want) {
		t.Errorf("Parse(%q).Segments() = %q, Segments %q", s, texts, want)
	}
}

func TestParseAgreesWithFunctions(t *testing.T) {
	commands := append([]string{
		"", " ", " ls ", "ls\n", "ls ;", "cargo fmt; cargo test", "git rev-parse HEAD && rm -rf /",
		"ls | wc -l", "echo 'a;b' && git push origin main", "RM -RF /", "cat a > b", "x=1 ls",
		"echo \"$(id)\" || true", "git push origin HEAD:dev ; git tag v1",
	}, fuzzSeeds...)
	for _, s := range commands {
		commandAgrees(t, s)
	}
}

// A Command asked twice, and its segments asked in any order, answers the
// same: the memory of a verdict never leaks into another.
func TestParseRemembers(t *testing.T) {
	c := Parse("rm -rf / ; ls")
	for range 2 {
		if c.Analyze() != Dangerous || c.ReadOnly() || !c.DestructiveLike() {
			t.Fatalf("whole: %v %v %v", c.Analyze(), c.ReadOnly(), c.DestructiveLike())
		}
		segs := c.Segments()
		if segs[1].Analyze() != Safe || !segs[1].ReadOnly() || segs[1].DestructiveLike() {
			t.Fatalf("ls: %v %v %v", segs[1].Analyze(), segs[1].ReadOnly(), segs[1].DestructiveLike())
		}
		if segs[0].Analyze() != Dangerous || !segs[0].DestructiveLike() {
			t.Fatalf("rm: %v %v", segs[0].Analyze(), segs[0].DestructiveLike())
		}
	}
}

// One Command shared by goroutines: run with -race.
func TestParseShared(t *testing.T) {
	c := Parse("cargo test && git push origin main")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if c.Analyze() != NeedsReview || c.ReadOnly() || c.RoutineAutoReview() || !c.Segments()[1].PublishLike() {
				t.Error("a shared Command answered differently")
			}
		})
	}
	wg.Wait()
}

func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(commandAgrees)
}
