// Package release decides which Codewhale release's behaviour codewhale-ls
// reproduces: the releases implemented, the version a user's Codewhale
// reports, and the choice between them (issue 10, point 1).
package release

import (
	"fmt"
	"strconv"
	"strings"
)

// Release is one Codewhale release whose behaviour the gate reproduces.
type Release struct {
	Version string
	Commit  string
}

// Implemented lists, oldest first, the releases whose behaviour is
// implemented. Adding one means implementing its delta in the gate and the
// loaders (docs/architecture.md, "Reproducing Codewhale").
var Implemented = []Release{
	{Version: "0.9.10", Commit: "75dca2cfbe1b5e0e9fd58c9eed27dbc1b4705c48"},
	{Version: "0.10.0", Commit: "fe7f17d38d9de41c3b12534636cf90dce4f1d2e6"},
	{Version: "0.10.1", Commit: "9ae63ee6640c6ea0d5b7b5b6bd79f3af89ccc660"},
}

// Newest is the newest implemented release.
func Newest() Release { return Implemented[len(Implemented)-1] }

// Version is a semantic version; Pre is the pre-release suffix without '-'.
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Parse reads MAJOR.MINOR.PATCH with an optional leading 'v', an optional
// -pre-release and an ignored +build suffix.
func Parse(s string) (Version, bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	if hasPre && pre == "" {
		return Version{}, false
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return Version{}, false
	}
	var nums [3]int
	for i, p := range parts {
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return Version{}, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strings.TrimLeft(p, "0123456789") != "" {
			return Version{}, false
		}
		nums[i] = n
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2], Pre: pre}, true
}

// Compare orders versions as semver does: a pre-release precedes its
// release, and pre-release identifiers compare numerically when both are
// numbers, else as strings, a numeric one first.
func Compare(a, b Version) int {
	for _, d := range [3]int{a.Major - b.Major, a.Minor - b.Minor, a.Patch - b.Patch} {
		if d != 0 {
			return sign(d)
		}
	}
	switch {
	case a.Pre == b.Pre:
		return 0
	case a.Pre == "":
		return 1
	case b.Pre == "":
		return -1
	}
	as, bs := strings.Split(a.Pre, "."), strings.Split(b.Pre, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := comparePreIdent(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return sign(len(as) - len(bs))
}

func comparePreIdent(a, b string) int {
	an, aErr := strconv.Atoi(a)
	bn, bErr := strconv.Atoi(b)
	switch {
	case aErr == nil && bErr == nil:
		return sign(an - bn)
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func sign(d int) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// ParseVersionOutput reads what `codewhale --version` printed: its first
// line, either a bare version or a program name (codewhale, codewhale-cli)
// followed by the version and optionally a parenthesised commit.
func ParseVersionOutput(out string) (Version, bool) {
	line, _, _ := strings.Cut(out, "\n")
	fields := strings.Fields(line)
	switch {
	case len(fields) == 1:
		return Parse(fields[0])
	case len(fields) >= 2 && (fields[0] == "codewhale" || fields[0] == "codewhale-cli"):
		if len(fields) > 3 || (len(fields) == 3 && !isParenthesised(fields[2])) {
			return Version{}, false
		}
		return Parse(fields[1])
	}
	return Version{}, false
}

func isParenthesised(s string) bool {
	return len(s) > 2 && s[0] == '(' && s[len(s)-1] == ')'
}

// Notes a Choice may carry.
const (
	NoteNewer = "unsupported newer release"
	// NoteBetween: a release between two implemented ones (0.9.11–0.9.13)
	// behaves as the older; the changes it brought are implemented from the
	// newer one on (docs/glossary.md, "Release between implemented ones").
	NoteBetween  = "not implemented itself, so read as the implemented release before it, without the changes it brought"
	NoteOlder    = "release older than every implemented one"
	NoteNotFound = "no Codewhale found"
)

// Choice is the release whose behaviour decides, and why.
type Choice struct {
	// Release is the version requested or detected; empty when none was.
	Release string `json:"release,omitempty"`
	// Behaviour is the implemented release reproduced.
	Behaviour string `json:"behaviour"`
	// Source says where Release came from ("--codewhale-version",
	// "initializationOptions.codewhaleVersion",
	// "detected at PATH (VERSION)", "default: ...").
	Source string `json:"source"`
	// Note is empty when Behaviour is exactly Release.
	Note string `json:"note,omitempty"`
}

// Exact reports whether Behaviour is the release asked for.
func (c Choice) Exact() bool { return c.Note == "" }

// Choose picks the newest implemented release not newer than v; a v newer
// than every implemented release gets the newest, one older than all gets
// the oldest, each flagged in Note.
func Choose(v Version, source string) Choice {
	c := Choice{Release: v.String(), Source: source}
	chosen := -1
	for i, r := range Implemented {
		iv, _ := Parse(r.Version)
		if Compare(iv, v) <= 0 {
			chosen = i
		}
	}
	switch {
	case chosen < 0:
		c.Behaviour, c.Note = Implemented[0].Version, NoteOlder
	default:
		c.Behaviour = Implemented[chosen].Version
		if iv, _ := Parse(c.Behaviour); Compare(iv, v) != 0 {
			// Newer than this implemented release: either a release between
			// two implemented ones (whose changes are not implemented) or one
			// newer than all.
			c.Note = NoteNewer
			if chosen < len(Implemented)-1 {
				c.Note = NoteBetween
			}
		}
	}
	return c
}

// Default is the choice when no release was requested or found; reason
// says why (for example that no codewhale is on PATH).
func Default(reason string) Choice {
	return Choice{Behaviour: Newest().Version, Source: "default: " + reason, Note: NoteNotFound}
}

// Describe says in one sentence which behaviour is reproduced and why, for
// check's output and the status.
func (c Choice) Describe() string {
	s := "Codewhale " + c.Behaviour + " behaviour"
	switch {
	case c.Release == "":
		s += " (" + c.Source + ")"
	default:
		s += " (Codewhale " + c.Release + ", " + c.Source + ")"
	}
	if c.Note != "" && c.Note != NoteNotFound {
		s += "; " + c.Note + ": codewhale-ls implements " + ImplementedList()
	}
	return s
}

// ImplementedList names the implemented releases, oldest first.
func ImplementedList() string {
	names := make([]string, len(Implemented))
	for i, r := range Implemented {
		names[i] = r.Version
	}
	return strings.Join(names, ", ")
}

// Where a user names a release, strongest first (docs/codewhale/contract.md
// §2, "Which Codewhale"); each is a Choice's Source when it decides.
const (
	SourceFlag   = "--codewhale-version"
	SourceOption = "initializationOptions.codewhaleVersion"
)

// Named applies the precedence of docs/codewhale/contract.md §2 ("Which
// Codewhale") to what the user named: flag (--codewhale-version) beats
// option (initializationOptions.codewhaleVersion); nil is not given. The
// strongest one given decides, valid or not, so that a mistyped flag is an
// error naming it rather than a silent fall back to a weaker source.
// named is false when neither was given: then the codewhale on PATH
// decides (Detector.Detect), else the newest release (Default); how long
// to wait for that detection is the caller's.
func Named(flag, option *string) (choice Choice, named bool, err error) {
	switch {
	case flag != nil:
		choice, err = Requested(*flag, SourceFlag)
	case option != nil:
		choice, err = Requested(*option, SourceOption)
	default:
		return Choice{}, false, nil
	}
	return choice, err == nil, err
}

// Requested is the choice for a release the user named, source saying
// where (SourceFlag, SourceOption); a value that is no version is an error
// naming the source.
func Requested(value, source string) (Choice, error) {
	v, ok := Parse(value)
	if !ok {
		return Choice{}, fmt.Errorf("%s: %q is not a Codewhale release such as %s", source, value, Newest().Version)
	}
	return Choose(v, source), nil
}
