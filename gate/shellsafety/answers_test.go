package shellsafety

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// testdata/answers.tsv holds, for about 1,300 commands (the test vectors
// of this package and of autoreview, and inputs a fuzzer found), the
// answers of the implementation before it read each command once: a
// quoted command, then ReadOnly, Analyze, PublishLike, DestructiveLike,
// RoutineAutoReview (1/0 or the level) and the quoted Segments. The rewrite
// for speed had to change none of them; a deliberate change of behaviour
// edits the file with it.
func TestAnswersUnchanged(t *testing.T) {
	data, err := os.ReadFile("testdata/answers.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 1000 {
		t.Fatalf("only %d answers", len(lines))
	}
	bit := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	for i, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			t.Fatalf("line %d: %d fields", i+1, len(f))
		}
		command, err := strconv.Unquote(f[0])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var segments []string
		for _, s := range segmentTexts(command) {
			segments = append(segments, strconv.Quote(s))
		}
		c := Parse(command)
		got := []string{f[0], bit(c.ReadOnly()), c.Analyze().String(), bit(c.PublishLike()),
			bit(c.DestructiveLike()), bit(c.RoutineAutoReview()), strings.Join(segments, " ")}
		if g := strings.Join(got, "\t"); g != line {
			t.Errorf("line %d: now\n\t%s\nwas\n\t%s", i+1, g, line)
		}
		commandConsistent(t, command)
	}
}
