package release_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
)

func TestDetectFound(t *testing.T) {
	dir := fakecodewhale.Printing(t, "0.11.0")
	var d release.Detector
	c := d.Detect(context.Background(), t.TempDir()+string(os.PathListSeparator)+dir)
	want := "detected at " + filepath.Join(dir, "codewhale") + " (0.11.0)"
	if c.Release != "0.11.0" || c.Behaviour != "0.10.1" || c.Source != want || c.Note != release.NoteNewer {
		t.Errorf("Detect = %+v", c)
	}
}

func TestDetectExact(t *testing.T) {
	dir := fakecodewhale.Dir(t, "echo 'codewhale-cli 0.9.10 (75dca2cf)'\n")
	var d release.Detector
	if c := d.Detect(context.Background(), dir); c.Release != "0.9.10" || !c.Exact() {
		t.Errorf("Detect = %+v", c)
	}
}

func TestDetectNotFound(t *testing.T) {
	var d release.Detector
	// A directory named codewhale and a non-executable file are not binaries;
	// a relative entry is never searched.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "codewhale"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "codewhale"), []byte("#!/bin/sh\necho 0.10.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := d.Detect(context.Background(), dir+string(os.PathListSeparator)+other+string(os.PathListSeparator)+".")
	if c.Release != "" || c.Note != release.NoteNotFound || c.Source != "default: no codewhale on PATH" {
		t.Errorf("Detect = %+v", c)
	}
}

func TestDetectUnreadable(t *testing.T) {
	for name, script := range map[string]string{
		"garbage": "echo 'hello there'\n",
		"fails":   "exit 3\n",
		"chatty":  "yes codewhale | head -c 100000; echo\n",
	} {
		t.Run(name, func(t *testing.T) {
			var d release.Detector
			c := d.Detect(context.Background(), fakecodewhale.Dir(t, script))
			if c.Release != "" || c.Note != release.NoteNotFound || !strings.HasPrefix(c.Source, "default: ") {
				t.Errorf("Detect = %+v", c)
			}
		})
	}
}

// A codewhale that never answers is killed at the timeout and counts as
// not found, with the timeout as the reason; even a child holding its
// stdout open cannot keep Detect waiting.
func TestDetectTimeout(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on this machine")
	}
	dir := fakecodewhale.Dir(t, sleep+" 30 &\nexec "+sleep+" 30\n")
	d := release.Detector{Timeout: 100 * time.Millisecond}
	done := make(chan release.Choice, 1)
	go func() { done <- d.Detect(context.Background(), dir) }()
	select {
	case c := <-done:
		if c.Release != "" || c.Note != release.NoteNotFound || !strings.Contains(c.Source, "timed out after 100ms") {
			t.Errorf("Detect = %+v", c)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Detect did not return after its timeout")
	}
}

// The answer is remembered per binary: a second Detect does not run it, and
// a binary replaced (new size) is asked again.
func TestDetectCache(t *testing.T) {
	dir := fakecodewhale.Dir(t, "echo x >> \"$0.count\"; echo 'codewhale 0.10.0'\n")
	bin := filepath.Join(dir, "codewhale")
	var d release.Detector
	for range 3 {
		if c := d.Detect(context.Background(), dir); c.Release != "0.10.0" {
			t.Fatalf("Detect = %+v", c)
		}
	}
	count := func() int {
		b, _ := os.ReadFile(bin + ".count")
		return strings.Count(string(b), "x")
	}
	if n := count(); n != 1 {
		t.Errorf("ran %d times, want 1", n)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho x >> \"$0.count\"; echo 'codewhale 0.10.1 (abcdef)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := d.Detect(context.Background(), dir); c.Release != "0.10.1" {
		t.Errorf("after replacement Detect = %+v", c)
	}
	if n := count(); n != 2 {
		t.Errorf("ran %d times, want 2", n)
	}
}

// repoCodewhale writes a codewhale that records it ran (in the returned
// marker path) and prints 0.9.10, into dir/node_modules/.bin, the way npx
// or direnv puts a repository's own binary on PATH.
func repoCodewhale(t *testing.T, dir string) (bin, marker string) {
	t.Helper()
	binDir := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	marker = filepath.Join(t.TempDir(), "ran")
	bin = filepath.Join(binDir, "codewhale")
	script := "#!/bin/sh\n: > '" + marker + "'\necho 'codewhale 0.9.10'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, marker
}

func ran(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// A repository's own codewhale is never run (it would execute on every
// hook call and pick the release judging the repository): not inside a
// git work tree (.git a directory, or the file of a linked work tree), not
// inside the workspace, not through a PATH symlink to one; the same
// script outside all of them is run.
func TestDetectSkipsRepositoryCodewhale(t *testing.T) {
	gitDir := func(t *testing.T) string {
		repo := t.TempDir()
		if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		return repo
	}
	t.Run("git work tree", func(t *testing.T) {
		repo := gitDir(t)
		bin, marker := repoCodewhale(t, repo)
		var d release.Detector
		c := d.Detect(context.Background(), filepath.Dir(bin))
		if ran(marker) || c.Release != "" || c.Note != release.NoteNotFound || !strings.Contains(c.Source, "git work tree "+repo) {
			t.Errorf("ran=%v Detect = %+v", ran(marker), c)
		}
	})
	t.Run("linked work tree", func(t *testing.T) {
		repo := t.TempDir()
		if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		bin, marker := repoCodewhale(t, repo)
		var d release.Detector
		if c := d.Detect(context.Background(), filepath.Dir(bin)); ran(marker) || c.Release != "" {
			t.Errorf("ran=%v Detect = %+v", ran(marker), c)
		}
	})
	t.Run("workspace", func(t *testing.T) {
		ws := t.TempDir()
		bin, marker := repoCodewhale(t, ws)
		var d release.Detector
		c := d.Detect(context.Background(), filepath.Dir(bin), ws)
		if ran(marker) || c.Release != "" || !strings.Contains(c.Source, "workspace "+ws) {
			t.Errorf("ran=%v Detect = %+v", ran(marker), c)
		}
	})
	t.Run("symlink on PATH", func(t *testing.T) {
		bin, marker := repoCodewhale(t, gitDir(t))
		pathDir := t.TempDir()
		if err := os.Symlink(bin, filepath.Join(pathDir, "codewhale")); err != nil {
			t.Fatal(err)
		}
		var d release.Detector
		if c := d.Detect(context.Background(), pathDir); ran(marker) || c.Release != "" {
			t.Errorf("ran=%v Detect = %+v", ran(marker), c)
		}
	})
	t.Run("outside", func(t *testing.T) {
		bin, marker := repoCodewhale(t, t.TempDir())
		var d release.Detector
		c := d.Detect(context.Background(), filepath.Dir(bin), t.TempDir())
		if !ran(marker) || c.Release != "0.9.10" {
			t.Errorf("ran=%v Detect = %+v", ran(marker), c)
		}
	})
}

// A codewhale outside every repository that is a launcher
// (`#!/usr/bin/env INTERPRETER`) does not get the repository's own
// interpreter from PATH: a node_modules/.bin/node printing 0.9.10 would
// choose the release after all (issue 14 point 11, found in review).
func TestDetectRunsWithoutTheRepositorysPath(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	repoBin := filepath.Join(repo, "node_modules", ".bin")
	sysBin := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The interpreter the launcher names: the system's says 0.10.1, the
	// repository's 0.9.10.
	write(filepath.Join(sysBin, "cwinterp"), "#!/bin/sh\necho 'codewhale 0.10.1'\n")
	write(filepath.Join(repoBin, "cwinterp"), "#!/bin/sh\necho 'codewhale 0.9.10'\n")
	write(filepath.Join(sysBin, "codewhale"), "#!/usr/bin/env cwinterp\n")
	var d release.Detector
	pathList := strings.Join([]string{repoBin, sysBin, "/usr/bin", "/bin"}, string(os.PathListSeparator))
	c := d.Detect(context.Background(), pathList, repo)
	if c.Release != "0.10.1" {
		t.Errorf("detected %s (%s), want the system interpreter's 0.10.1", c.Release, c.Source)
	}
}
