package release_test

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func mustParse(t *testing.T, s string) release.Version {
	t.Helper()
	v, ok := release.Parse(s)
	if !ok {
		t.Fatalf("Parse(%q) failed", s)
	}
	return v
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"0.10.1", "0.10.1", true},
		{"v0.9.10", "0.9.10", true},
		{"0.10.0-rc.1", "0.10.0-rc.1", true},
		{"0.10.0+build5", "0.10.0", true},
		{"0.10", "", false},
		{"0.10.1.2", "", false},
		{"01.2.3", "", false},
		{"0.10.x", "", false},
		{"0.10.1-", "", false},
		{"-1.2.3", "", false},
		{"", "", false},
	} {
		v, ok := release.Parse(tc.in)
		if ok != tc.ok || (ok && v.String() != tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want %q, %v", tc.in, v, ok, tc.want, tc.ok)
		}
	}
}

func TestCompare(t *testing.T) {
	// Each is less than the next (semver §11's own example, plus ours).
	order := []string{"0.9.9", "0.9.10", "0.10.0-alpha", "0.10.0-alpha.1", "0.10.0-alpha.beta", "0.10.0-beta.2", "0.10.0-beta.11", "0.10.0-rc.1", "0.10.0", "0.10.1", "1.0.0"}
	for i := range order {
		for j := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := release.Compare(mustParse(t, order[i]), mustParse(t, order[j])); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestParseVersionOutput(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want string // "" = unknown
	}{
		{"codewhale 0.10.1\n", "0.10.1"},
		{"codewhale-cli 0.10.1 (abc123)\n", "0.10.1"},
		{"0.10.1", "0.10.1"},
		{"  codewhale 0.9.10  \nbuilt 2026-08-01\n", "0.9.10"},
		{"codewhale 0.10.0-rc.2\n", "0.10.0-rc.2"},
		{"codewhale version 0.10.1\n", ""},
		{"codewhale 0.10.1 abc123\n", ""},
		{"otherwhale 0.10.1\n", ""},
		{"error: unknown flag --version\n", ""},
		{"", ""},
		{"\ncodewhale 0.10.1\n", ""},
	} {
		v, ok := release.ParseVersionOutput(tc.out)
		got := ""
		if ok {
			got = v.String()
		}
		if got != tc.want {
			t.Errorf("ParseVersionOutput(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestChoose(t *testing.T) {
	newest := release.Newest().Version
	oldest := release.Implemented[0].Version
	for _, tc := range []struct {
		in        string
		behaviour string
		note      string
	}{
		{"0.9.10", "0.9.10", ""},
		{"0.9.11", "0.9.10", release.NoteBetween},
		{"0.9.13", "0.9.10", release.NoteBetween},
		{"0.10.0", "0.10.0", ""},
		// A pre-release of 0.10.0 precedes it: 0.9.10's behaviour.
		{"0.10.0-rc.1", "0.9.10", release.NoteBetween},
		{"0.10.1", "0.10.1", ""},
		{"0.10.2", newest, release.NoteNewer},
		{"0.11.0", newest, release.NoteNewer},
		// A pre-release of the implemented release precedes it, so it is
		// older than every implemented release.
		{"0.9.10-rc.1", oldest, release.NoteOlder},
		{"0.9.9", oldest, release.NoteOlder},
	} {
		c := release.Choose(mustParse(t, tc.in), "flag")
		if c.Behaviour != tc.behaviour || c.Note != tc.note || c.Release != tc.in || c.Source != "flag" {
			t.Errorf("Choose(%s) = %+v; want behaviour %s note %q", tc.in, c, tc.behaviour, tc.note)
		}
		if c.Exact() != (tc.note == "") {
			t.Errorf("Choose(%s).Exact() = %v", tc.in, c.Exact())
		}
	}
}

func TestDefault(t *testing.T) {
	c := release.Default("no codewhale on PATH")
	if c.Release != "" || c.Behaviour != release.Newest().Version || c.Note != release.NoteNotFound || c.Source != "default: no codewhale on PATH" {
		t.Errorf("Default = %+v", c)
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		c    release.Choice
		want string
	}{
		{release.Choose(mustParse(t, "0.9.10"), "--codewhale-version"), "Codewhale 0.9.10 behaviour (Codewhale 0.9.10, --codewhale-version)"},
		{release.Choose(mustParse(t, "0.11.0"), "detected at /bin/codewhale (0.11.0)"),
			"Codewhale 0.10.1 behaviour (Codewhale 0.11.0, detected at /bin/codewhale (0.11.0)); unsupported newer release: codewhale-ls implements 0.9.10, 0.10.0, 0.10.1"},
		{release.Default("no codewhale on PATH"), "Codewhale 0.10.1 behaviour (default: no codewhale on PATH)"},
	} {
		if got := tc.c.Describe(); got != tc.want {
			t.Errorf("Describe(%+v) =\n %q\nwant\n %q", tc.c, got, tc.want)
		}
	}
}

func TestRequested(t *testing.T) {
	if c, err := release.Requested("0.10.1", "flag"); err != nil || c.Behaviour != "0.10.1" || c.Note != "" || c.Source != "flag" {
		t.Errorf("Requested(0.10.1) = %+v, %v", c, err)
	}
	if c, err := release.Requested("0.9.12", "flag"); err != nil || c.Behaviour != "0.9.10" || c.Note != release.NoteBetween {
		t.Errorf("Requested(0.9.12) = %+v, %v", c, err)
	}
	if _, err := release.Requested("latest", "initializationOptions.codewhaleVersion"); err == nil || err.Error() != `initializationOptions.codewhaleVersion: "latest" is not a Codewhale release such as 0.10.1` {
		t.Errorf("Requested(latest) error = %v", err)
	}
}

// Every combination of the flag and the option, each absent, a release or
// no version: the flag decides whenever it is given, the option only
// without it, and neither leaves the choice to detection (the codewhale on
// PATH, else the newest: TestDetect*). A value that is no version is an
// error naming its source, even when a weaker source holds a good one.
func TestNamed(t *testing.T) {
	str := func(s string) *string { return &s }
	flagChoice := release.Choice{Release: "0.9.10", Behaviour: "0.9.10", Source: release.SourceFlag}
	optionChoice := release.Choice{Release: "0.10.0", Behaviour: "0.10.0", Source: release.SourceOption}
	for _, tc := range []struct {
		name         string
		flag, option *string
		want         release.Choice
		named        bool
		errNames     string // the source the error names; "" for no error
	}{
		{name: "none: detection decides"},
		{name: "flag", flag: str("0.9.10"), want: flagChoice, named: true},
		{name: "option", option: str("0.10.0"), want: optionChoice, named: true},
		{name: "flag beats option", flag: str("0.9.10"), option: str("0.10.0"), want: flagChoice, named: true},
		{name: "flag beats a bad option", flag: str("0.9.10"), option: str("latest"), want: flagChoice, named: true},
		{name: "bad flag", flag: str("latest"), errNames: release.SourceFlag},
		{name: "empty flag", flag: str(""), errNames: release.SourceFlag},
		{name: "bad flag, good option", flag: str("0.10"), option: str("0.10.0"), errNames: release.SourceFlag},
		{name: "bad option", option: str("0.10"), errNames: release.SourceOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, named, err := release.Named(tc.flag, tc.option)
			if tc.errNames != "" {
				if err == nil || named || !strings.HasPrefix(err.Error(), tc.errNames+": ") {
					t.Fatalf("Named = %+v, %v, %v; want an error naming %s", got, named, err, tc.errNames)
				}
				return
			}
			if err != nil || named != tc.named || got != tc.want {
				t.Errorf("Named = %+v, %v, %v; want %+v, %v", got, named, err, tc.want, tc.named)
			}
		})
	}
}
