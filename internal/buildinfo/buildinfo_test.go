package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

var vcsSettings = []debug.BuildSetting{
	{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
	{Key: "vcs.time", Value: "2026-12-06T08:00:00Z"}, {Key: "vcs.modified", Value: "true"},
}

// The version: the stamp wins, then a real tag from Go's build
// information, then the source's version; never a pseudo-version.
func TestVersionPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		module  string
		stamp   string
		version string
	}{
		{"stamp wins over a tag", "v0.3.0", "0.2.0", "0.2.0"},
		{"stamp with a leading v", "", "v0.2.0", "0.2.0"},
		{"tag from go install @v0.3.0", "v0.3.0", "", "0.3.0"},
		{"pre-release tag", "v0.3.0-rc.1", "", "0.3.0-rc.1"},
		{"devel build", "(devel)", "", SourceVersion},
		{"no module version", "", "", SourceVersion},
		{"pseudo-version", "v0.0.0-20261206080000-0123456789ab", "", SourceVersion},
		{"pseudo-version after a tag", "v0.1.1-0.20261206080000-0123456789ab", "", SourceVersion},
		{"tag with uncommitted changes", "v0.3.0+dirty", "", SourceVersion},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: tc.module}}
		if got := fromBuild(bi, tc.stamp, "", "").Version; got != tc.version {
			t.Errorf("%s: version %q, want %q", tc.name, got, tc.version)
		}
	}
	if got := fromBuild(nil, "", "", "").Version; got != SourceVersion {
		t.Errorf("no build information: version %q, want %q", got, SourceVersion)
	}
}

// Stamped commit and date win over Go's vcs settings; a tree with
// uncommitted changes says so either way.
func TestVersionStampsWin(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "(devel)"}, Settings: vcsSettings}
	got := fromBuild(bi, "0.2.0", "feedface", "2026-01-02T03:04:05Z")
	want := Info{Version: "0.2.0", Commit: "feedface", Date: "2026-01-02T03:04:05Z", Go: "go1.99.1", Modified: true, OS: runtime.GOOS, Arch: runtime.GOARCH}
	if got != want {
		t.Errorf("stamped:\n got %+v\nwant %+v", got, want)
	}
	got = fromBuild(bi, "", "", "")
	want = Info{Version: SourceVersion, Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-06T08:00:00Z", Go: "go1.99.1", Modified: true, OS: runtime.GOOS, Arch: runtime.GOARCH}
	if got != want {
		t.Errorf("from build information:\n got %+v\nwant %+v", got, want)
	}
}

func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "(devel)"}, Settings: vcsSettings}
	platform := " for " + runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name       string
		info       *debug.BuildInfo
		commit, at string
		want       string
	}{
		{"stamped", stamped, "", "", "commit 0123456789abcdef0123456789abcdef01234567 (2026-12-06T08:00:00Z, with uncommitted changes), built with go1.99.1" + platform},
		{"ldflags win", stamped, "feedface", "2026-01-02T03:04:05Z", "commit feedface (2026-01-02T03:04:05Z, with uncommitted changes), built with go1.99.1" + platform},
		{"unstamped", &debug.BuildInfo{GoVersion: "go1.99.1"}, "", "", "commit unknown (built without version control information), built with go1.99.1" + platform},
		// The tag is the version on the line above; saying it twice says nothing.
		{"go install @version", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v0.1.0"}}, "", "",
			"commit unknown (built without version control information), built with go1.99.1" + platform},
		{"pseudo-version of another commit", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v0.0.0-20261206080000-fedcba987654"}}, "", "",
			"commit unknown (built without version control information), module v0.0.0-20261206080000-fedcba987654, built with go1.99.1" + platform},
		{"pseudo-version of the commit", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v0.0.0-20261206080000-0123456789ab+dirty"}, Settings: stamped.Settings}, "", "",
			"commit 0123456789abcdef0123456789abcdef01234567 (2026-12-06T08:00:00Z, with uncommitted changes), built with go1.99.1" + platform},
		{"tag with uncommitted changes", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v0.3.0+dirty"}}, "", "",
			"commit unknown (built without version control information), module v0.3.0+dirty, built with go1.99.1" + platform},
		{"no build info", nil, "", "", "commit unknown (built without version control information), built with " + runtime.Version() + platform},
	} {
		if got := fromBuild(tc.info, "", tc.commit, tc.at).Line(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
