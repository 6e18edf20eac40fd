package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// target is one platform a release has a binary for.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

// binaryName is the binary's file name on t.
func (t target) binaryName() string {
	if t.goos == "windows" {
		return "codewhale-ls.exe"
	}
	return "codewhale-ls"
}

// allTargets are the platforms of a release (conventions27.md): Go builds
// every one of them without cgo.
var allTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// parseTargets reads --targets: "all" or a comma-separated list of
// goos/goarch among allTargets, kept in allTargets' order.
func parseTargets(list string) ([]target, error) {
	if list == "" || list == "all" {
		return allTargets, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		known := false
		for _, t := range allTargets {
			known = known || t.String() == name
		}
		if !known {
			return nil, fmt.Errorf("unknown target %q in --targets; known: all or any of %v", name, allTargets)
		}
		want[name] = true
	}
	var targets []target
	for _, t := range allTargets {
		if want[t.String()] {
			targets = append(targets, t)
		}
	}
	return targets, nil
}

const buildinfoPackage = "github.com/codewhale-ls/codewhale-ls/internal/buildinfo"

// goBuild builds cmd/codewhale-ls of repo for t into dir/<binaryName>.
// Everything that could make two builds of one commit differ is fixed:
// no cgo, no paths of this machine (-trimpath), no VCS stamp (the commit
// is stamped instead), no build id, no symbol table, the default
// instruction set levels, and the stamps from src.
func goBuild(repo string, src origin, t target, dir string) (string, error) {
	out := filepath.Join(dir, t.binaryName())
	ldflags := strings.Join([]string{
		"-s", "-w", "-buildid=",
		"-X", buildinfoPackage + ".version=" + src.version,
		"-X", buildinfoPackage + ".commit=" + src.commit,
		"-X", buildinfoPackage + ".date=" + src.epoch.Format("2006-01-02T15:04:05Z"),
	}, " ")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags, "-o", out, "./cmd/codewhale-ls")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOEXPERIMENT=", "GOFLAGS=-mod=readonly",
	)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build for %s: %w\n%s", t, err, stderr.String())
	}
	return out, nil
}

// hostTarget is the platform this program runs on, whose build of the
// same source writes the completions and the man page.
func hostTarget() target { return target{runtime.GOOS, runtime.GOARCH} }

// docs are the files codewhale-ls writes about itself, the same on every
// platform: the three completion scripts and the man page.
type docs struct {
	bash, zsh, fish, man []byte
}

// generateDocs runs binary (a host build of the release's source) for its
// completions and man page, so the files shipped are what that source
// generates, never copies that could drift from it.
func generateDocs(binary string) (docs, error) {
	var d docs
	for _, job := range []struct {
		into *[]byte
		args []string
	}{
		{&d.bash, []string{"completion", "bash"}},
		{&d.zsh, []string{"completion", "zsh"}},
		{&d.fish, []string{"completion", "fish"}},
		{&d.man, []string{"man"}},
	} {
		cmd := exec.Command(binary, job.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return d, fmt.Errorf("codewhale-ls %s: %w: %s", strings.Join(job.args, " "), err, strings.TrimSpace(stderr.String()))
		}
		if len(out) == 0 {
			return d, fmt.Errorf("codewhale-ls %s printed nothing", strings.Join(job.args, " "))
		}
		*job.into = out
	}
	return d, nil
}
