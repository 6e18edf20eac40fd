package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// origin is what a release is built from: the commit, the version its
// assets carry and the time every file in them is stamped with.
type origin struct {
	commit  string    // 40 hex
	version string    // no leading v: 0.2.0, or 0.1.0-snapshot.<12 hex>
	epoch   time.Time // SOURCE_DATE_EPOCH, else the commit's time
}

var (
	releaseTag = regexp.MustCompile(`^v(\d+\.\d+\.\d+)$`)
	semver     = regexp.MustCompile(`^\d+\.\d+\.\d+$`)
)

// readSource reads the commit at HEAD of repo and decides the version. A
// release (not snapshot) needs a clean tree and a tag vX.Y.Z at HEAD equal
// to the source's own version (internal/buildinfo.SourceVersion), so the
// binary, the editors' packages and the assets all say the same; a
// snapshot is the source version, "-snapshot." and the commit's first 12
// hex digits, and may be built from a dirty tree (its files then differ
// from the commit's: a snapshot is for testing).
func readSource(repo string, snapshot bool, sourceDateEpoch string) (origin, error) {
	var src origin
	commit, err := git(repo, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return src, err
	}
	src.commit = commit
	sourceVersion, err := readSourceVersion(repo)
	if err != nil {
		return src, err
	}
	status, err := git(repo, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return src, err
	}
	if snapshot {
		src.version = sourceVersion + "-snapshot." + commit[:12]
	} else {
		if status != "" {
			return src, fmt.Errorf("the work tree has changes not committed (git status: %s): a release is built from a commit only; commit or stash them, or build a --snapshot", firstLine(status))
		}
		tags, err := git(repo, "tag", "--points-at", "HEAD")
		if err != nil {
			return src, err
		}
		var versions []string
		for _, tag := range strings.Fields(tags) {
			if m := releaseTag.FindStringSubmatch(tag); m != nil {
				versions = append(versions, m[1])
			}
		}
		switch {
		case len(versions) == 0:
			return src, errors.New("HEAD has no tag vX.Y.Z: tag the release commit (git tag v" + sourceVersion + "), or build a --snapshot")
		case len(versions) > 1:
			return src, fmt.Errorf("HEAD has %d release tags (%s): a release has one version; delete the wrong tags", len(versions), strings.Join(versions, ", "))
		case versions[0] != sourceVersion:
			return src, fmt.Errorf("HEAD is tagged v%s but internal/buildinfo.SourceVersion says %s: bump the source version (and the editors' packages) in the tagged commit", versions[0], sourceVersion)
		}
		src.version = versions[0]
	}
	if sourceDateEpoch == "" {
		sourceDateEpoch, err = git(repo, "log", "-1", "--format=%ct", "HEAD")
		if err != nil {
			return src, err
		}
	}
	seconds, err := strconv.ParseInt(sourceDateEpoch, 10, 64)
	if err != nil || seconds < 0 {
		return src, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a count of seconds since 1970", sourceDateEpoch)
	}
	src.epoch = time.Unix(seconds, 0).UTC()
	return src, nil
}

// readSourceVersion is the constant SourceVersion of repo's
// internal/buildinfo, read from its source: this module builds the main
// module, it does not import it.
func readSourceVersion(repo string) (string, error) {
	dir := filepath.Join(repo, "internal", "buildinfo")
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("reading the source version: no Go files in %s", dir)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			return "", fmt.Errorf("reading the source version: %w", err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				value := spec.(*ast.ValueSpec)
				for i, ident := range value.Names {
					if ident.Name != "SourceVersion" || i >= len(value.Values) {
						continue
					}
					lit, ok := value.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return "", fmt.Errorf("%s: SourceVersion is not a string literal", name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil || !semver.MatchString(v) {
						return "", fmt.Errorf("%s: SourceVersion %s is not X.Y.Z", name, lit.Value)
					}
					return v, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s: no const SourceVersion", dir)
}

// git runs git in repo and returns its output without the final newline.
func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimRight(string(out), "\n"), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
