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
