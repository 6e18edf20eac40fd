package hooks

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/grouptest"
)

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
	grouptest.WaitGone(t, readPgid(t, file))
}

func TestBackgroundCloseKillsRunningHooks(t *testing.T) {
	file := pidFile(t)
	bg := NewBackground(ShellRunner{})
	if !bg.Submit(shellHook("echo $$ > "+file+"; sleep 30"), nil, "", 30*time.Second) {
		t.Fatal("not queued")
	}
	waitForFile(t, file)
	bg.Close()
	grouptest.WaitGone(t, readPgid(t, file))
}

// A hook that leaves a process running is judged when its shell exits, as
// Codewhale does, and what it left is killed: before, the runner waited
// for stdout to close, so the strict hook below timed out and was denied.
func TestHookLeavingAProcessIsJudgedAtExit(t *testing.T) {
	file := pidFile(t)
	h := shellHook("echo $$ > " + file + `; sleep 1000 & echo '{"decision":"allow"}'`)
	h.ContinueOnError = false
	h.TimeoutSecs = 30
	call := bashCall
	call.Workspace = t.TempDir()
	got := Before(context.Background(), ShellRunner{}, nil, Config{Enabled: true, Hooks: []Hook{h}}, call)
	if got.Denied || got.Records[0].ExitCode == nil || *got.Records[0].ExitCode != 0 {
		t.Fatalf("denied %v (%s), records %+v", got.Denied, got.Reason, got.Records)
	}
	grouptest.WaitGone(t, readPgid(t, file))
}

// A cancelled run kills the whole group at once, the shell included.
func TestCancelKillsProcessGroup(t *testing.T) {
	file := pidFile(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		done <- ShellRunner{}.Run(ctx, shellHook("echo $$ > "+file+"; sleep 1000 & sleep 1000"), nil, "", time.Hour)
	}()
	waitForFile(t, file)
	cancel()
	if res := <-done; res.ExitCode != nil || res.TimedOut {
		t.Fatalf("%+v", res)
	}
	grouptest.WaitGone(t, readPgid(t, file))
}

func waitForFile(t *testing.T, file string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, _ := os.ReadFile(file); strings.HasSuffix(string(b), "\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the hook never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
