package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository whose internal/buildinfo says version and
// commits it; it returns the folder and the commit.
func gitRepo(t *testing.T, version string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	src := "package buildinfo\n\nconst SourceVersion = \"" + version + "\"\n"
	if err := writeFile(filepath.Join(dir, "internal", "buildinfo", "buildinfo.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one", "--date", "2026-01-02T03:04:05Z"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return dir, commit
}

func TestReadSourceSnapshotAndTag(t *testing.T) {
	dir, commit := gitRepo(t, "1.2.3")
	src, err := readSource(dir, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "1.2.3-snapshot." + commit[:12]; src.version != want || src.commit != commit {
		t.Errorf("snapshot: version %s commit %s, want %s %s", src.version, src.commit, want, commit)
	}
	if got := src.epoch.Format("2006-01-02T15:04:05Z"); got != "2026-01-02T03:04:05Z" {
		t.Errorf("epoch %s, want the commit's time", got)
	}
	if src, err = readSource(dir, true, "86400"); err != nil || src.epoch.Unix() != 86400 {
		t.Errorf("SOURCE_DATE_EPOCH=86400: epoch %v, %v", src.epoch, err)
	}
	if _, err := readSource(dir, true, "yesterday"); err == nil {
		t.Error("a SOURCE_DATE_EPOCH that is no number was taken")
	}

	if _, err := readSource(dir, false, ""); err == nil || !strings.Contains(err.Error(), "no tag") {
		t.Errorf("release without a tag: %v", err)
	}
	if _, err := git(dir, "tag", "v1.2.4"); err != nil {
		t.Fatal(err)
	}
	if _, err := readSource(dir, false, ""); err == nil || !strings.Contains(err.Error(), "SourceVersion says 1.2.3") {
		t.Errorf("release tagged with another version: %v", err)
	}
	if _, err := git(dir, "tag", "-d", "v1.2.4"); err != nil {
		t.Fatal(err)
	}
	if _, err := git(dir, "tag", "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	if src, err := readSource(dir, false, ""); err != nil || src.version != "1.2.3" {
		t.Errorf("release at v1.2.3: version %q, %v", src.version, err)
	}

	// A change not committed: a release refuses it, a snapshot builds.
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readSource(dir, false, ""); err == nil || !strings.Contains(err.Error(), "not committed") {
		t.Errorf("release from a dirty tree: %v", err)
	}
	if _, err := readSource(dir, true, ""); err != nil {
		t.Errorf("snapshot from a dirty tree: %v", err)
	}
}

func TestReadSourceVersionMustBeSemver(t *testing.T) {
	dir, _ := gitRepo(t, "1.2")
	if _, err := readSource(dir, true, ""); err == nil || !strings.Contains(err.Error(), "not X.Y.Z") {
		t.Errorf("SourceVersion 1.2: %v", err)
	}
}
