package release

import (
	"fmt"
	"slices"
	"strings"
)

// Change is one behaviour of Codewhale's that differs between implemented
// releases, keyed to the release it landed in, the way a compiler keys a
// language change to an edition: the gate and the loaders write each
// behaviour once and ask Has, never copying a layer per release
// (docs/codewhale/releases/README.md).
type Change struct {
	// ID names the change in the delta specs (for example "A.3.4" of
	// 0.10.0, "N1" of 0.10.1); with Since it is unique.
	ID string
	// Since is the first implemented release with the change.
	Since string
	// Summary says in one line what the change does, for explain, hover
	// and the docs.
	Summary string
}

// String names the change and its release, as explain and the lints quote it.
func (c Change) String() string {
	return "changed in Codewhale " + c.Since + " (" + c.ID + "): " + c.Summary
}

// Of returns the implemented release named version; ok is false for any
// other string.
func Of(version string) (Release, bool) {
	for _, r := range Implemented {
		if r.Version == version {
			return r, true
		}
	}
	return Release{}, false
}

// MustOf returns the implemented release named version and panics for any
// other string. It is for tables and tests, which name releases as
// literals: naming one that is not implemented is a programming error.
// Input from users or files goes through Of.
func MustOf(version string) Release {
	r, ok := Of(version)
	if !ok {
		panic(fmt.Sprintf("release: %q is not an implemented release", version))
	}
	return r
}

// Oldest is the oldest implemented release: what a zero Release means.
func Oldest() Release { return Implemented[0] }

// Implementation returns the implemented release whose behaviour the choice
// reproduces.
func (c Choice) Implementation() Release {
	// Choose, Default and Requested only name implemented releases; the
	// zero Choice (no choice made, as in tests) is the zero Release, the
	// oldest implemented one.
	r, _ := Of(c.Behaviour)
	return r
}

// Has reports whether r behaves with c. The zero Release behaves as the
// oldest implemented one, so code that never learnt the release keeps
// 0.9.10's behaviour rather than guessing a newer one.
func (r Release) Has(c Change) bool {
	return r.index() >= indexOf(c.Since)
}

// Before reports whether r is older than the implemented release named
// version.
func (r Release) Before(version string) bool {
	return r.index() < indexOf(version)
}

func (r Release) index() int {
	if r.Version == "" {
		return 0
	}
	return indexOf(r.Version)
}

// indexOf is version's place in Implemented. Has asks it twice a call and
// is asked a dozen times a decision, so it compares the few implemented
// versions with version rather than hash it for a map or parse it, which
// costs half a map lookup. It panics for a release that is not
// implemented: a Release or a Change naming one is a programming error
// (TestChangesAreKeyedToImplementedReleases).
func indexOf(version string) int {
	for i := range Implemented {
		if Implemented[i].Version == version {
			return i
		}
	}
	panic(fmt.Sprintf("release: %q is not an implemented release", version))
}

// Name is the release's version, the oldest implemented one for a zero
// Release.
func (r Release) Name() string {
	if r.Version == "" {
		return Oldest().Version
	}
	return r.Version
}

// Changes lists every change, by release then ID.
func Changes() []Change {
	all := slices.Concat(engineChanges, configChanges, pipelineChanges, lintChanges)
	slices.SortStableFunc(all, func(a, b Change) int {
		if c := compareVersions(a.Since, b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return all
}

func compareVersions(a, b string) int {
	va, _ := Parse(a)
	vb, _ := Parse(b)
	return Compare(va, vb)
}
