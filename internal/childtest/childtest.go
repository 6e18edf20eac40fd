//go:build linux

// Package childtest ends, with the test binary, every process its tests
// started: the real editors, agent CLIs, tmux servers and language
// servers of the end-to-end suites. An interrupted `go test` (Ctrl-C)
// must not leave a Copilot CLI or a Neovim running, and a test that
// forgets one fails instead of leaking it (issue 24, point 15).
package childtest

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// settle is how long processes already sent SIGKILL by a test's own
// cleanup get to finish dying before the sweep calls them left behind.
const settle = 2 * time.Second

// Run runs m's tests and returns their exit code. While they run, this
// process adopts every orphan its descendants leave (so a daemon such as
// tmux's server stays in its tree), and an interrupt (SIGINT, SIGTERM,
// SIGHUP) ends every descendant before the binary exits. After the
// tests, any descendant still running is named on stderr, ended, and
// turns a passing run into a failure.
func Run(m *testing.M) int {
	adoptOrphans()
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	watcherEnded := make(chan struct{})
	// go test's -timeout panics inside this binary, which then exits
	// without running any cleanup: the sweep runs just before it.
	timedOut := make(<-chan time.Time)
	if timeout := testTimeout(); timeout > 0 {
		timer := time.NewTimer(timeout - timeoutMargin(timeout))
		defer timer.Stop()
		timedOut = timer.C
	}
	go func() {
		defer close(watcherEnded)
		select {
		case sig := <-interrupted:
			ended := endDescendants()
			fmt.Fprintf(os.Stderr, "childtest: %v: ended %d processes the tests had started\n", sig, len(ended))
			os.Exit(130)
		case <-timedOut:
			ended := endDescendants()
			fmt.Fprintf(os.Stderr, "childtest: the test timeout is near: ended %d processes the tests had started:\n  %s\n", len(ended), strings.Join(ended, "\n  "))
		case <-done:
		}
	}()
	code := m.Run()
	close(done)
	<-watcherEnded
	signal.Stop(interrupted)

	left := aliveAfter(settle)
	if len(left) > 0 {
		endDescendants()
		fmt.Fprintf(os.Stderr, "childtest: %d processes the tests started were still running after them, and were ended:\n  %s\n",
			len(left), strings.Join(left, "\n  "))
		if code == 0 {
			code = 1
		}
	}
	return code
}

// aliveAfter lists the running descendants, giving those already dying
// up to wait to go.
func aliveAfter(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		left := describe(descendants())
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// endDescendants kills every running descendant and the process group
// it leads, returning what it ended.
func endDescendants() []string {
	procs := descendants()
	for _, p := range procs {
		if p.pgid == p.pid {
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	return describe(procs)
}

// testTimeout is go test's -timeout (0 when none); flag.Parse is what
// m.Run would call first.
func testTimeout() time.Duration {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.timeout")
	if f == nil {
		return 0
	}
	d, _ := time.ParseDuration(f.Value.String())
	return d
}

// timeoutMargin is how long before the timeout the sweep runs: a
// twentieth of it, at most five seconds.
func timeoutMargin(timeout time.Duration) time.Duration {
	return min(timeout/20, 5*time.Second)
}

func describe(procs []process) []string {
	var out []string
	for _, p := range procs {
		out = append(out, fmt.Sprintf("pid %d: %s", p.pid, p.command))
	}
	return out
}

// process is one running descendant of this test binary.
type process struct {
	pid, pgid int
	command   string
}
