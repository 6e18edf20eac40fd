// Package buildinfo is codewhale-ls's one version and what a binary was
// built from: the stamps a release build sets with -ldflags -X, else what
// Go's build information recorded, else the version in this source
// (issue 27). Every place that
// names codewhale-ls's version (the LSP server info, status, SARIF, the
// OpenTelemetry resource, `codewhale-ls version`) reads it here.
package buildinfo

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// SourceVersion is the version this source is: the one the VS Code
// extension, the Neovim plugin and the Emacs package carry too
// (editors/version_test.go fails when they drift). A release bumps them
// together.
const SourceVersion = "0.1.0"

// The build stamps, all optional; a release build sets them:
//
//	go build -ldflags "-X github.com/codewhale-ls/codewhale-ls/internal/buildinfo.version=0.1.0
//	  -X github.com/codewhale-ls/codewhale-ls/internal/buildinfo.commit=$(git rev-parse HEAD)
//	  -X github.com/codewhale-ls/codewhale-ls/internal/buildinfo.date=2026-12-06T08:00:00Z" ./cmd/codewhale-ls
//
// Set, they win over Go's build information (a source archive or
// -buildvcs=false has none).
var version, commit, date string

// Info is what a binary was built from; its JSON is `codewhale-ls
// version --json`'s (without the Codewhale releases, which the command
// adds).
type Info struct {
	Version string `json:"version"` // no leading v: 0.2.0
	Commit  string `json:"commit"`  // "" when unknown
	Date    string `json:"date"`    // RFC 3339, "" when unknown
	Go      string `json:"go"`
	// Modified is a build from a work tree with uncommitted changes.
	Modified bool   `json:"modified"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	// module is the module version Go recorded when it says more than
	// Version and Commit (a pseudo-version of another commit); "" else.
	module string
}

// Read is this binary's Info, read once: neither the stamps nor the build
// information change while it runs.
var Read = sync.OnceValue(func() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(bi, version, commit, date)
})

// Version is this binary's version: the stamped one, else the module's tag
// (go install ...@v0.2.0 gives 0.2.0), else SourceVersion.
func Version() string { return Read().Version }

// fromBuild is the Info of a binary with build information bi (nil when
// there is none) and the stamps given.
func fromBuild(bi *debug.BuildInfo, stampVersion, stampCommit, stampDate string) Info {
	info := Info{Version: strings.TrimPrefix(stampVersion, "v"), Commit: stampCommit, Date: stampDate,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	settings := map[string]string{}
	moduleVersion := ""
	if bi != nil {
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if bi.GoVersion != "" {
			info.Go = bi.GoVersion
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			moduleVersion = v
		}
	}
	if info.Commit == "" {
		info.Commit = settings["vcs.revision"]
	}
	if info.Date == "" {
		info.Date = settings["vcs.time"]
	}
	info.Modified = settings["vcs.modified"] == "true" || strings.HasSuffix(moduleVersion, "+dirty")
	if info.Version == "" && isTag(moduleVersion) {
		info.Version = strings.TrimPrefix(moduleVersion, "v")
	}
	if info.Version == "" {
		info.Version = SourceVersion
	}
	// The module version is worth showing unless it is the version shown
	// or a pseudo-version of the commit shown.
	short := info.Commit[:min(12, len(info.Commit))]
	if moduleVersion != "" && strings.TrimPrefix(moduleVersion, "v") != info.Version && (short == "" || !strings.Contains(moduleVersion, short)) {
		info.module = moduleVersion
	}
	return info
}

// semverTag is a release tag as `go install ...@vX.Y.Z` records it, with
// an optional pre-release (v0.2.0-rc.1) and no build metadata (+dirty).
var semverTag = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// pseudoTail is the end of a Go pseudo-version: a 14-digit UTC time and
// a 12-hex commit (go.dev/ref/mod#pseudo-versions).
var pseudoTail = regexp.MustCompile(`(^|[-.])\d{14}-[0-9a-f]{12}$`)

// isTag reports whether a module version is a real tag, not a
// pseudo-version of a commit nor a build from a modified tree.
func isTag(v string) bool {
	return semverTag.MatchString(v) && !pseudoTail.MatchString(v)
}

// Line says what the binary was built from in one line: the commit, its
// time, whether the work tree had uncommitted changes, the module version
// when it says more, and the Go that built it for which platform.
func (i Info) Line() string {
	var b strings.Builder
	switch i.Commit {
	case "":
		b.WriteString("commit unknown (built without version control information), ")
	default:
		b.WriteString("commit " + i.Commit)
		var about []string
		if i.Date != "" {
			about = append(about, i.Date)
		}
		if i.Modified {
			about = append(about, "with uncommitted changes")
		}
		if len(about) > 0 {
			b.WriteString(" (" + strings.Join(about, ", ") + ")")
		}
		b.WriteString(", ")
	}
	if i.module != "" {
		b.WriteString("module " + i.module + ", ")
	}
	b.WriteString("built with " + i.Go + " for " + i.OS + "/" + i.Arch)
	return b.String()
}
