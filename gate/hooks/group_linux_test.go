package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// liveInGroup lists processes of the group that are not zombies (a
// container's init may be slow to reap them).
func liveInGroup(t *testing.T, pgid string) []string {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var live []string
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) > 2 && fields[2] == pgid && fields[0] != "Z" {
			live = append(live, path)
		}
	}
	return live
}

func waitGroupGone(t *testing.T, pgid string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for len(liveInGroup(t, pgid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes of group %s survive: %v", pgid, liveInGroup(t, pgid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	file := pidFile(t)
	start := time.Now()
	res := ShellRunner{}.Run(context.Background(), shellHook("echo $$ > "+file+"; sleep 30 & sleep 30"), nil, "", time.Second)
	if !res.TimedOut || res.ExitCode != nil || res.Err != "Hook timed out after 1s" {
		t.Fatalf("%+v", res)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	waitGroupGone(t, readPgid(t, file))
}

func TestBackgroundCloseKillsRunningHooks(t *testing.T) {
	file := pidFile(t)
	bg := NewBackground(ShellRunner{})
	if !bg.Submit(shellHook("echo $$ > "+file+"; sleep 30"), nil, "", 30*time.Second) {
		t.Fatal("not queued")
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if b, _ := os.ReadFile(file); strings.HasSuffix(string(b), "\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("background hook never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	bg.Close()
	waitGroupGone(t, readPgid(t, file))
}
