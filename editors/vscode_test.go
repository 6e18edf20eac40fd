package editors_test

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// vscodeDir is the extension's folder, relative to this package.
const vscodeDir = "vscode"

// requireExtensionDeps skips (fails under CODEWHALE_E2E=1) when node, npm
// or the extension's npm dependencies are missing.
func requireExtensionDeps(t *testing.T) {
	t.Helper()
	requireTool(t, "node", "apt-get install nodejs npm")
	requireTool(t, "npm", "apt-get install npm")
	out, err := exec.Command("node", "-p", "process.versions.node.split('.')[0]").Output()
	if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || major < 20 {
		msg := fmt.Sprintf("node %s is older than the extension's tools need (20; .ci/setup-vscode.sh installs 24 into /opt/codewhale-e2e/node)", strings.TrimSpace(string(out)))
		if e2eRequired() {
			t.Fatal("CODEWHALE_E2E=1 but " + msg)
		}
		t.Skip(msg)
	}
	if _, err := os.Stat(filepath.Join(vscodeDir, "node_modules", ".bin", "vsce")); err != nil {
		if e2eRequired() {
			t.Fatal("CODEWHALE_E2E=1 but editors/vscode has no node_modules (run .ci/setup-vscode.sh)")
		}
		t.Skip("editors/vscode has no node_modules (run .ci/setup-vscode.sh, or npm ci there); set CODEWHALE_E2E=1 to make that a failure")
	}
}

// eslintJS is the linter, installed apart in lint/ (lint/package.json
// says why), relative to vscodeDir.
var eslintJS = filepath.Join("lint", "node_modules", "eslint", "bin", "eslint.js")

// requireLinter skips (fails under CODEWHALE_E2E=1) when the linter's
// npm dependencies are missing.
func requireLinter(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(vscodeDir, eslintJS)); err != nil {
		if e2eRequired() {
			t.Fatal("CODEWHALE_E2E=1 but editors/vscode/lint has no node_modules (run .ci/setup-vscode.sh)")
		}
		t.Skip("editors/vscode/lint has no node_modules (run .ci/setup-vscode.sh, or npm ci there); set CODEWHALE_E2E=1 to make that a failure")
	}
}

// goCaches pins Go's build and module caches, which default to places
// under HOME: the hermetic HOME would otherwise start them empty.
var goCaches = sync.OnceValues(func() ([]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil, err
	}
	values := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(values) != 3 {
		return nil, fmt.Errorf("go env printed %q", out)
	}
	return []string{"GOCACHE=" + values[0], "GOMODCACHE=" + values[1], "GOPATH=" + values[2]}, nil
})

// hermeticEnv is the environment with HOME, XDG_* and CODEWHALE_HOME in
// dir, so nothing reads or writes the real home; Go keeps its caches.
func hermeticEnv(t *testing.T, dir string, extra ...string) []string {
	t.Helper()
	caches, err := goCaches()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg-config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "xdg-data"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "xdg-cache"),
		"CODEWHALE_HOME=" + filepath.Join(dir, "home", ".codewhale"),
		"npm_config_cache=" + filepath.Join(dir, "npm-cache"),
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "CODEWHALE_HOME", "npm_config_cache", "GOCACHE", "GOMODCACHE", "GOPATH":
		default:
			env = append(env, kv)
		}
	}
	env = append(env, caches...)
	return append(env, extra...)
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestVSCodeExtensionTypeChecks: strict tsc over the sources and tests,
// and ESLint (eslint.config.mjs, npm run lint) over them and the scripts.
func TestVSCodeExtensionTypeChecks(t *testing.T) {
	requireExtensionDeps(t)
	t.Run("tsc", func(t *testing.T) {
		runIn(t, vscodeDir, hermeticEnv(t, t.TempDir()), filepath.Join("node_modules", ".bin", "tsc"), "--noEmit", "-p", ".")
	})
	t.Run("eslint", func(t *testing.T) {
		requireLinter(t)
		// --max-warnings 0: a warning is a finding too.
		runIn(t, vscodeDir, hermeticEnv(t, t.TempDir()), "node", eslintJS, "--max-warnings", "0", ".")
	})
}

// TestVSCodeExtensionTests runs the extension's unit tests and the Node
// protocol tests (node --test) against the server built from this tree.
func TestVSCodeExtensionTests(t *testing.T) {
	requireExtensionDeps(t)
	server := serverBinary(t)
	tmp := t.TempDir()
	// Inside the extension's folder, so the compiled tests find its
	// node_modules; a dot name, so Go's ./... patterns (run meanwhile by
	// other tests) never walk into it while it comes and goes.
	out, err := os.MkdirTemp(vscodeDir, ".out-test-")
	if err == nil {
		out, err = filepath.Abs(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	runIn(t, vscodeDir, hermeticEnv(t, tmp), filepath.Join("node_modules", ".bin", "tsc"), "-p", ".", "--outDir", out)
	// The files by name: Node 20 runs a directory's tests, Node 22+ takes a
	// directory argument for a file to run.
	tests, err := filepath.Glob(filepath.Join(out, "test", "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no compiled tests in %s (%v)", out, err)
	}
	args := append([]string{"--test", "--test-reporter=tap"}, tests...)
	report := runIn(t, vscodeDir, hermeticEnv(t, tmp, "CODEWHALE_LS_BIN="+server), "node", args...)
	// Every test ran: a suite skipped for want of the binary would pass too.
	for _, want := range []string{"# fail 0", "# skipped 0", "# cancelled 0"} {
		if !strings.Contains(report, want) {
			t.Errorf("node --test: no %q in\n%s", want, report)
		}
	}
	if m := regexp.MustCompile(`# pass (\d+)`).FindStringSubmatch(report); m == nil || m[1] == "0" {
		t.Errorf("node --test ran no tests:\n%s", report)
	} else {
		t.Logf("node --test: %s tests passed", m[1])
	}
}

// TestVSCodePackagesEveryTarget: one .vsix per platform, each with that
// platform's server and the bundle, schemas and manifest, and nothing
// else (no node_modules, no sources).
func TestVSCodePackagesEveryTarget(t *testing.T) {
	requireCrossBuilds(t, "packaging five targets")
	requireExtensionDeps(t)
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	runIn(t, vscodeDir, hermeticEnv(t, tmp), "node", filepath.Join("scripts", "package.mjs"), "--out", dist)
	for target, exe := range map[string]string{
		"linux-x64": "codewhale-ls", "linux-arm64": "codewhale-ls",
		"darwin-x64": "codewhale-ls", "darwin-arm64": "codewhale-ls",
		"win32-x64": "codewhale-ls.exe",
	} {
		path := filepath.Join(dist, "codewhale-"+target+".vsix")
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		var names []string
		var manifest string
		for _, f := range zr.File {
			names = append(names, f.Name)
			if f.Name == "extension.vsixmanifest" {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				b := make([]byte, 64<<10)
				n, _ := rc.Read(b)
				rc.Close()
				manifest = string(b[:n])
			}
		}
		zr.Close()
		got := strings.Join(names, "\n")
		for _, want := range []string{
			"extension/bin/" + exe, "extension/out/extension.js", "extension/package.json", "extension/readme.md",
			"extension/LICENSE.txt", // the repository's LICENSE, copied in by package.mjs
			"extension/schemas/config.schema.json", "extension/schemas/permissions.schema.json",
			"extension/schemas/hooks.schema.json", "extension/schemas/constitution.schema.json",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: no %s in\n%s", target, want, got)
			}
		}
		for _, bad := range []string{"node_modules", "/src/", ".ts\n", "/test/", otherExe(exe)} {
			if strings.Contains(got+"\n", bad) {
				t.Errorf("%s: %q should not be in\n%s", target, bad, got)
			}
		}
		if !strings.Contains(manifest, `TargetPlatform="`+target+`"`) {
			t.Errorf("%s: the manifest does not name the target:\n%s", target, manifest)
		}
	}
}

// otherExe is the binary name of the other kind of platform, which must
// not ride along.
func otherExe(exe string) string {
	if exe == "codewhale-ls.exe" {
		return "extension/bin/codewhale-ls\n"
	}
	return "extension/bin/codewhale-ls.exe"
}
