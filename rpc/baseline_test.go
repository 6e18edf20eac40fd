package rpc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Opening a policy file does not stall the session while git looks up its
// CW500 baseline: before, didOpen ran `git show` on the read loop, for up
// to two seconds per file, and every other message waited.
func TestSlowGitDoesNotStallMessages(t *testing.T) {
	fake := t.TempDir()
	pidFile, release := filepath.Join(fake, "git.pid"), filepath.Join(fake, "release")
	script := "#!/bin/sh\necho $$ > " + pidFile + "\nwhile [ ! -e " + release + " ]; do sleep 0.05; done\nexit 1\n"
	if err := os.WriteFile(filepath.Join(fake, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	s := newSession(t, w, Options{})
	s.initialize(editor)
	u := s.open(w.overlayPath(), 1, "approval_policy = \"never\"\n")
	pid := 0
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(pidFile); strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("git was never run")
		}
	}
	s.alive("opening a file while git is slow")
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("codewhale/status was answered only after git ended (%v)", err)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.waitVersion(u, 1)
	s.shutdown()
}
