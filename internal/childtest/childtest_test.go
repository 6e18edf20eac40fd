//go:build linux

package childtest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary a test run of its own that starts a
// process in a group of its own (as the end-to-end suites start editors
// and agent CLIs) and then blocks or returns, as the value says.
const helperEnv = "CHILDTEST_HELPER"

func TestMain(m *testing.M) { os.Exit(Run(m)) }

func TestHelper(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("run by the tests below as a test binary of its own")
	}
	// The grandchild is started by a shell that exits at once: the
	// grandchild is orphaned, as tmux's server is.
	cmd := exec.Command("sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("pid " + string(out))
	if mode == "block" {
		select {}
	}
}

// helper starts this test binary as a helper in mode, returning it and
// the pid of the process it started.
func helper(t *testing.T, mode string) (*exec.Cmd, *bytes.Buffer, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "pid "); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				t.Fatal(err)
			}
			go func() { // drain the rest so the helper never blocks writing
				for sc.Scan() {
				}
			}()
			return cmd, &stderr, pid
		}
	}
	t.Fatalf("the helper printed no pid; stderr: %s", stderr.String())
	return nil, nil, 0
}

// running reports whether pid is a live (not zombie) process.
func running(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	state := strings.Fields(string(data[i+1:]))[0]
	return state != "Z" && state != "X"
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !running(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("pid %d is still running after the test binary ended", pid)
}

func TestInterruptEndsWhatTheTestsStarted(t *testing.T) {
	cmd, stderr, pid := helper(t, "block")
	if !running(pid) {
		t.Fatalf("pid %d is not running before the interrupt", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	waitGone(t, pid)
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 130 {
		t.Errorf("interrupted test binary: %v, want exit 130", err)
	}
	if !strings.Contains(stderr.String(), "ended 1 processes") {
		t.Errorf("stderr does not say what was ended: %s", stderr.String())
	}
}

func TestLeftRunningFailsTheRun(t *testing.T) {
	cmd, stderr, pid := helper(t, "return")
	err := cmd.Wait()
	waitGone(t, pid)
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Errorf("a run that left a process running: %v, want exit 1", err)
	}
	if !strings.Contains(stderr.String(), "sleep 300") {
		t.Errorf("stderr does not name what was left running: %s", stderr.String())
	}
}

func TestTimeoutEndsWhatTheTestsStarted(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelper$", "-test.v", "-test.timeout=4s")
	cmd.Env = append(os.Environ(), helperEnv+"=block")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil {
		t.Fatal("a test binary past its timeout exited 0")
	}
	_, rest, ok := strings.Cut(out.String(), "pid ")
	if !ok {
		t.Fatalf("the helper printed no pid:\n%s", out.String())
	}
	pid, err := strconv.Atoi(strings.Fields(rest)[0])
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if !strings.Contains(out.String(), "the test timeout is near") {
		t.Errorf("output does not say the sweep ran:\n%s", out.String())
	}
}
