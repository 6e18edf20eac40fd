package release_test

import (
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Every change lands in an implemented release after the oldest, and no two
// share an ID within a release.
func TestChangesAreKeyedToImplementedReleases(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range release.Changes() {
		r, ok := release.Of(c.Since)
		if !ok || r == release.Oldest() {
			t.Errorf("%s: Since %q is not an implemented release after %s", c.ID, c.Since, release.Oldest().Version)
		}
		if key := c.Since + " " + c.ID; seen[key] {
			t.Errorf("%s: listed twice", key)
		} else {
			seen[key] = true
		}
		if c.Summary == "" {
			t.Errorf("%s: no summary", c.ID)
		}
	}
}

func TestHas(t *testing.T) {
	old := release.MustOf("0.9.10")
	mid := release.MustOf("0.10.0")
	newest := release.MustOf("0.10.1")
	for _, tc := range []struct {
		r    release.Release
		c    release.Change
		want bool
	}{
		{old, release.DenyWildcard, false},
		{release.Release{}, release.DenyWildcard, false},
		{mid, release.DenyWildcard, true},
		{newest, release.DenyWildcard, true},
		{mid, release.RunTimeWordsRefused, false},
		{newest, release.RunTimeWordsRefused, true},
	} {
		if got := tc.r.Has(tc.c); got != tc.want {
			t.Errorf("%q.Has(%s) = %v", tc.r.Version, tc.c.ID, got)
		}
	}
}

// MustOf names the same release Of does and refuses, by panicking, a
// version that is not implemented, so a table naming one fails loudly.
func TestMustOf(t *testing.T) {
	for _, r := range release.Implemented {
		if got := release.MustOf(r.Version); got != r {
			t.Errorf("MustOf(%q) = %v", r.Version, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustOf(\"0.9.9\") did not panic")
		}
	}()
	release.MustOf("0.9.9")
}
