package shellsafety

import (
	"slices"
	"sync"
	"testing"
)

// segmentTexts are the texts of Parse(s).Segments().
func segmentTexts(s string) []string {
	var out []string
	for _, seg := range Parse(s).Segments() {
		out = append(out, seg.Text())
	}
	return out
}

// commandConsistent checks what Parse builds beyond one reading: the text
// is kept, each segment is its own only segment, and a segment shared from
// its command answers as the same text parsed on its own.
func commandConsistent(t *testing.T, s string) {
	t.Helper()
	c := Parse(s)
	if c.Text() != s {
		t.Errorf("Parse(%q).Text() = %q", s, c.Text())
	}
	if want := appendSegments(nil, s); !slices.Equal(segmentTexts(s), want) {
		t.Errorf("Parse(%q).Segments() = %q, want %q", s, segmentTexts(s), want)
	}
	for _, seg := range c.Segments() {
		if len(seg.Segments()) != 1 || seg.Segments()[0] != seg {
			t.Errorf("Parse(%q): segment %q is not its own only segment", s, seg.Text())
		}
		alone := Parse(seg.Text())
		if seg.PublishLike() != alone.PublishLike() || seg.DestructiveLike() != alone.DestructiveLike() ||
			seg.Analyze() != alone.Analyze() || seg.ReadOnly() != alone.ReadOnly() || seg.RoutineAutoReview() != alone.RoutineAutoReview() {
			t.Errorf("Parse(%q): segment %q answers differently from the same text parsed alone", s, seg.Text())
		}
	}
}

func TestParseConsistent(t *testing.T) {
	commands := append([]string{
		"", " ", " ls ", "ls\n", "ls ;", "cargo fmt; cargo test", "git rev-parse HEAD && rm -rf /",
		"ls | wc -l", "echo 'a;b' && git push origin main", "RM -RF /", "cat a > b", "x=1 ls",
		"echo \"$(id)\" || true", "git push origin HEAD:dev ; git tag v1",
	}, fuzzSeeds...)
	for _, s := range commands {
		commandConsistent(t, s)
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
	f.Fuzz(commandConsistent)
}
