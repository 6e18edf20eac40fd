package problem

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	short := strings.Repeat("é", ExcerptRunes) // 400 bytes, 200 characters
	if got := Excerpt(short); got != short {
		t.Errorf("shortened a text of %d characters", ExcerptRunes)
	}
	long := strings.Repeat("é", 5_000_000)
	got := Excerpt(long)
	if want := short + "… (10000000 bytes in all)"; got != want {
		t.Errorf("got %d bytes: %q", len(got), got[len(got)-40:])
	}
}

func TestCapRunes(t *testing.T) {
	for _, c := range []struct {
		s     string
		limit int
		want  string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "abc+"}, {"", 0, ""}, {"a", 0, "+"}, {"ééé", 2, "éé+"},
	} {
		if got := CapRunes(c.s, c.limit, "+"); got != c.want {
			t.Errorf("CapRunes(%q, %d) = %q, want %q", c.s, c.limit, got, c.want)
		}
	}
}
