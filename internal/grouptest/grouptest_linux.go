// Package grouptest lets tests check that a hook's process group was
// killed. It is for tests only.
package grouptest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveInGroup lists processes of the group that are not zombies (a
// container's init may be slow to reap them).
func liveInGroup(pgid string) []string {
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

// WaitGone waits until kill(-pgid, 0) fails with ESRCH, or only zombies
// are left in the group; it fails t after two seconds.
func WaitGone(t testing.TB, pgid string) {
	t.Helper()
	pgid = strings.TrimSpace(pgid)
	n, err := strconv.Atoi(pgid)
	if err != nil || n <= 1 {
		t.Fatalf("bad process group %q", pgid)
	}
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(-n, 0) != syscall.ESRCH && len(liveInGroup(pgid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes of group %s survive: %v", pgid, liveInGroup(pgid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
