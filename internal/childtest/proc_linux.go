//go:build linux

package childtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// adoptOrphans makes this process the subreaper of its descendants
// (prctl(2) PR_SET_CHILD_SUBREAPER): a process that daemonizes by
// forking twice, as tmux's server does, is re-parented here rather than
// to init, so the sweep still finds it.
func adoptOrphans() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// statLimit bounds a read of /proc/PID/stat and /proc/PID/cmdline.
const statLimit = 4096

// descendants lists the running (not zombie) processes below this one,
// read from /proc.
func descendants() []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	type stat struct {
		ppid, pgid int
		zombie     bool
	}
	stats := map[int]stat{}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := readLimited(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp …"; comm may hold spaces and
		// parentheses, so the fields start after the last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		stats[pid] = stat{ppid: ppid, pgid: pgid, zombie: f[0] == "Z" || f[0] == "X"}
		children[ppid] = append(children[ppid], pid)
	}
	var out []process
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		for _, pid := range children[parent] {
			queue = append(queue, pid)
			if s := stats[pid]; !s.zombie {
				out = append(out, process{pid: pid, pgid: s.pgid, command: commandLine(pid)})
			}
		}
	}
	return out
}

func commandLine(pid int) string {
	data, err := readLimited(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(data) == 0 {
		return "?"
	}
	return strings.TrimSpace(string(bytes.ReplaceAll(data, []byte{0}, []byte{' '})))
}

// readLimited reads at most statLimit bytes of a /proc file (regular
// files that never block).
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, statLimit)
	n, err := f.Read(buf)
	if n > 0 {
		err = nil
	}
	return buf[:n], err
}
