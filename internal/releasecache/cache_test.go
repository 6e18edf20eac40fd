//go:build unix

package releasecache_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
	"github.com/codewhale-ls/codewhale-ls/internal/releasecache"
)

// counting is a fake codewhale printing version and counting its runs.
func counting(t *testing.T, version string) (dir string, runs func() int) {
	dir = fakecodewhale.Dir(t, "echo x >> \"$0.count\"; echo 'codewhale "+version+"'\n")
	return dir, func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "codewhale.count"))
		return strings.Count(string(b), "x")
	}
}

// Two detectors sharing nothing but the cache directory, as two hook
// processes do, run the binary once; a binary replaced is asked again.
func TestFreshDetectorsRunOnce(t *testing.T) {
	store := releasecache.File{Dir: filepath.Join(t.TempDir(), "codewhale-ls")}
	dir, runs := counting(t, "0.10.0")
	for i := range 3 {
		d := release.Detector{Store: store}
		c := d.Detect(context.Background(), dir)
		if c.Release != "0.10.0" || c.Source != "detected at "+filepath.Join(dir, "codewhale")+" (0.10.0)" {
			t.Fatalf("detector %d: %+v", i, c)
		}
	}
	if n := runs(); n != 1 {
		t.Errorf("codewhale ran %d times over three fresh detectors, want 1", n)
	}
	info, err := os.Stat(filepath.Join(store.Dir, releasecache.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("cache file mode %v, want 0600", perm)
	}
	if info, _ := os.Stat(store.Dir); info.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v, want 0700", info.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(store.Dir, "*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// Same size, rewritten in place: the modification time (and on Linux
	// the inode's change time) tells it apart.
	bin := filepath.Join(dir, "codewhale")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho x >> \"$0.count\"; echo 'codewhale 0.10.1'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := release.Detector{Store: store}
	if c := d.Detect(context.Background(), dir); c.Release != "0.10.1" {
		t.Errorf("after the binary changed: %+v", c)
	}
	if n := runs(); n != 2 {
		t.Errorf("codewhale ran %d times, want 2 (once more after it changed)", n)
	}
}

// A binary that times out, as one that prints no version, is remembered
// for release.FailureTTL: the next process does not wait for it again
// (2.2 s a hook call), and says the reason is remembered; past the TTL it
// is asked again.
func TestFailureRememberedForAWhile(t *testing.T) {
	store := releasecache.File{Dir: t.TempDir()}
	dir := fakecodewhale.Dir(t, "echo x >> \"$0.count\"; exec "+sleep(t)+" 5\n")
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "codewhale.count"))
		return strings.Count(string(b), "x")
	}
	start := time.Now()
	d := release.Detector{Store: store, Timeout: 300 * time.Millisecond}
	if c := d.Detect(context.Background(), dir); c.Release != "" || !strings.Contains(c.Source, "timed out after 300ms") {
		t.Fatalf("Detect = %+v", c)
	}
	cold := time.Since(start)
	start = time.Now()
	d2 := release.Detector{Store: store, Timeout: 300 * time.Millisecond}
	c := d2.Detect(context.Background(), dir)
	cached := time.Since(start)
	if c.Release != "" || !strings.Contains(c.Source, "timed out after 300ms (remembered from ") || runs() != 1 {
		t.Errorf("second process: %+v, ran %d times", c, runs())
	}
	t.Logf("a codewhale that times out: %v the first time, %v remembered", cold, cached)

	// Past the TTL it is asked again.
	bin := filepath.Join(dir, "codewhale")
	key := release.BinaryKey(bin, stat(t, bin))
	a, ok := store.Recall(key)
	if !ok || a.Read || a.Failure == "" {
		t.Fatalf("Recall = %+v, %v", a, ok)
	}
	a.At = a.At.Add(-release.FailureTTL - time.Second)
	store.Remember(key, a)
	d3 := release.Detector{Store: store, Timeout: 300 * time.Millisecond}
	d3.Detect(context.Background(), dir)
	if n := runs(); n != 2 {
		t.Errorf("past the TTL: ran %d times, want 2", n)
	}
}

// The caller's deadline (a hook's own timeout) is no fact about the
// binary: it is not remembered.
func TestCallerDeadlineNotRemembered(t *testing.T) {
	store := releasecache.File{Dir: t.TempDir()}
	dir := fakecodewhale.Dir(t, "exec "+sleep(t)+" 5\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	d := release.Detector{Store: store}
	d.Detect(ctx, dir)
	bin := filepath.Join(dir, "codewhale")
	if a, ok := store.Recall(release.BinaryKey(bin, stat(t, bin))); ok {
		t.Errorf("remembered %+v", a)
	}
}

// Whatever is at the cache's place, Recall answers at once with nothing
// remembered and Detect asks the binary; a garbage file is then replaced.
func TestBadCacheFileIgnored(t *testing.T) {
	big := `{"entries":[` + strings.Repeat(" ", releasecache.MaxSize) + `]}`
	for name, setup := range map[string]func(t *testing.T, p string){
		"garbage":  func(t *testing.T, p string) { write(t, p, "{not json") },
		"oversize": func(t *testing.T, p string) { write(t, p, big) },
		"bad version": func(t *testing.T, p string) {
			write(t, p, `{"entries":[{"key":"x","version":"banana"}]}`)
		},
		"directory": func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		},
		"fifo": func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		},
		"symlink": func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			write(t, target, `{"entries":[]}`)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			store := releasecache.File{Dir: t.TempDir()}
			p := filepath.Join(store.Dir, releasecache.FileName)
			setup(t, p)
			done := make(chan bool, 1)
			go func() {
				_, ok := store.Recall("x")
				done <- ok
			}()
			select {
			case ok := <-done:
				if ok {
					t.Error("Recall found an entry in a bad cache file")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Recall hangs on the cache file")
			}
			dir, runs := counting(t, "0.9.10")
			d := release.Detector{Store: store}
			if c := d.Detect(context.Background(), dir); c.Release != "0.9.10" || runs() != 1 {
				t.Errorf("Detect = %+v, ran %d times", c, runs())
			}
			if name == "garbage" || name == "oversize" || name == "bad version" {
				if _, ok := store.Recall(release.BinaryKey(filepath.Join(dir, "codewhale"), stat(t, filepath.Join(dir, "codewhale")))); !ok {
					t.Error("the bad file was not replaced by a good one")
				}
			}
		})
	}
}

// The cache keeps the newest MaxEntries binaries.
func TestBounded(t *testing.T) {
	store := releasecache.File{Dir: t.TempDir()}
	v, _ := release.Parse("0.10.1")
	for i := range releasecache.MaxEntries + 5 {
		store.Remember(strings.Repeat("k", i+1), release.Answer{Read: true, Version: v, At: time.Now()})
	}
	if _, ok := store.Recall("k"); ok {
		t.Error("the oldest entry is still remembered")
	}
	if _, ok := store.Recall(strings.Repeat("k", releasecache.MaxEntries+5)); !ok {
		t.Error("the newest entry is forgotten")
	}
}

// sleep is sleep's path: the fake codewhale runs with only its own
// directory on PATH.
func sleep(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep here")
	}
	return p
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func stat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
