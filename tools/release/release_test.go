package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx/v2/v2_3"
)

// testTargets are the platforms the test builds: one tar.gz with its
// packages and one zip. CI builds all of them (.ci/run).
const testTargets = "linux/amd64,windows/amd64"

// TestReleaseIsReproducible runs the whole program twice at this commit
// into two folders and compares them byte for byte, then checks what a
// user checks: SHA256SUMS verifies, and each SBOM is SPDX 2.3 naming the
// binary's module and every module built into it.
func TestReleaseIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds codewhale-ls twice")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")}
	for _, dir := range dirs {
		args := []string{"--repo", repo, "--snapshot", "--out", dir, "--targets", testTargets, "--no-vsix"}
		if err := run(context.Background(), args, io.Discard); err != nil {
			t.Fatalf("release %v: %v", args, err)
		}
	}
	one, two := readDir(t, dirs[0]), readDir(t, dirs[1])
	if len(one) != len(two) {
		t.Fatalf("the two runs wrote %d and %d files", len(one), len(two))
	}
	for name, data := range one {
		if !bytes.Equal(data, two[name]) {
			t.Errorf("%s differs between two runs at one commit", name)
		}
	}

	sums := verifySums(t, one)
	for _, suffix := range []string{"_linux_amd64.tar.gz", "_windows_amd64.zip", "_amd64.deb", ".x86_64.rpm"} {
		found := false
		for name := range sums {
			found = found || strings.HasSuffix(name, suffix)
		}
		if !found {
			t.Errorf("no asset *%s in SHA256SUMS", suffix)
		}
	}

	for name, data := range one {
		if !strings.HasSuffix(name, "_linux_amd64.tar.gz") {
			continue
		}
		binary := unpackBinary(t, data)
		checkSBOM(t, one[name+".spdx.json"], binary)
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}

// verifySums checks SHA256SUMS as sha256sum -c does and that it lists
// every other file, sorted; it returns the names it lists.
func verifySums(t *testing.T, files map[string][]byte) map[string]bool {
	t.Helper()
	listed := map[string]bool{}
	previous := ""
	scanner := bufio.NewScanner(bytes.NewReader(files["SHA256SUMS"]))
	for scanner.Scan() {
		sum, name, ok := strings.Cut(scanner.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not sha256sum's format", scanner.Text())
		}
		if name <= previous {
			t.Errorf("SHA256SUMS is not sorted: %s after %s", name, previous)
		}
		previous = name
		got := sha256.Sum256(files[name])
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 is not the one SHA256SUMS lists", name)
		}
		listed[name] = true
	}
	for name := range files {
		if name != "SHA256SUMS" && !listed[name] {
			t.Errorf("%s is not in SHA256SUMS", name)
		}
	}
	return listed
}

// unpackBinary is the codewhale-ls binary inside a tar.gz.
func unpackBinary(t *testing.T, archive []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no codewhale-ls in the archive: %v", err)
		}
		if strings.HasSuffix(h.Name, "/codewhale-ls") {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
}

// checkSBOM checks that doc is SPDX 2.3 and names the binary's module
// and each module Go says is built into the binary, at its version.
func checkSBOM(t *testing.T, doc, binary []byte) {
	t.Helper()
	var parsed v2_3.Document
	if err := spdxjson.ReadInto(bytes.NewReader(doc), &parsed); err != nil {
		t.Fatalf("SBOM is not SPDX JSON: %v", err)
	}
	if parsed.SPDXVersion != "SPDX-2.3" {
		t.Errorf("SBOM is %s, want SPDX-2.3", parsed.SPDXVersion)
	}
	versions := map[string]string{}
	for _, p := range parsed.Packages {
		versions[p.PackageName] = p.PackageVersion
	}
	exe := filepath.Join(t.TempDir(), "codewhale-ls")
	if err := os.WriteFile(exe, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := buildinfo.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if v := versions[info.Main.Path]; !strings.HasPrefix(v, "v") || !strings.Contains(v, "-snapshot.") {
		t.Errorf("SBOM names %s at %q, want the snapshot's version", info.Main.Path, v)
	}
	if len(info.Deps) == 0 {
		t.Fatal("the binary names no modules")
	}
	for _, dep := range info.Deps {
		if versions[dep.Path] != dep.Version {
			t.Errorf("SBOM names %s at %q, the binary has %s", dep.Path, versions[dep.Path], dep.Version)
		}
	}
}
