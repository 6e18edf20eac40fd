package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Runner runs one hook process. env holds the hook's own variables; a
// runner adds them to the environment it inherits.
type Runner interface {
	Run(ctx context.Context, h Hook, env []string, dir string, timeout time.Duration) Result
}

// Result is what one hook run produced.
type Result struct {
	// ExitCode is nil when the hook timed out, failed to start, was killed
	// by a signal or was lost.
	ExitCode *int
	Stdout   string
	Err      string // why there is no exit code; never shown to the model
	TimedOut bool
}

// MaxStdoutBytes caps what a hook's stdout may occupy in memory; the rest
// is read and discarded so the hook never blocks on a full pipe.
const MaxStdoutBytes = 1 << 20

// ShellRunner runs hooks with the system shell in their own process group.
type ShellRunner struct{}

// Run waits until the hook exits and its stdout is closed, the timeout
// passes or ctx ends; in the last two cases the whole group is killed.
func (ShellRunner) Run(ctx context.Context, h Hook, env []string, dir string, timeout time.Duration) Result {
	stdout, writer, err := os.Pipe()
	if err != nil {
		return Result{Err: "failed to spawn hook: " + err.Error()}
	}
	cmd := shellCommand(h.Command)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	cmd.Stdout = writer // an *os.File: Wait then owns no copying goroutine
	ownProcessGroup(cmd)
	err = cmd.Start()
	writer.Close()
	if err != nil {
		stdout.Close()
		return Result{Err: "failed to spawn hook: " + err.Error()}
	}
	defer stdout.Close()

	output := make(chan string, 1)
	go func() { output <- readCapped(stdout, MaxStdoutBytes) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	var out string
	var waitErr error
	for gotOut, gotExit := false, false; !gotOut || !gotExit; {
		select {
		case out = <-output:
			gotOut = true
		case waitErr = <-exited:
			gotExit = true
		case <-timer.C:
			stop(cmd, stdout, exited, gotExit)
			return Result{Err: fmt.Sprintf("Hook timed out after %ds", int64(timeout/time.Second)), TimedOut: true}
		case <-ctx.Done():
			stop(cmd, stdout, exited, gotExit)
			return Result{Err: "hook cancelled: " + ctx.Err().Error()}
		}
	}
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		var exitErr *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &exitErr) {
			return Result{Stdout: out, Err: "hook lost: " + waitErr.Error()}
		}
		return Result{Stdout: out, Err: "hook terminated by a signal"}
	}
	return Result{ExitCode: &code, Stdout: out}
}

// stop kills the hook's process group and releases its goroutines: the
// reader ends when its pipe closes, the waiter once the group is dead.
func stop(cmd *exec.Cmd, stdout *os.File, exited <-chan error, gotExit bool) {
	killProcessGroup(cmd)
	stdout.Close()
	if !gotExit {
		<-exited
	}
}

// readCapped reads r to its end, keeping at most limit bytes.
func readCapped(r io.Reader, limit int64) string {
	var buf []byte
	chunk := make([]byte, 32*1024)
	for {
		n, err := r.Read(chunk)
		if room := limit - int64(len(buf)); room > 0 {
			buf = append(buf, chunk[:min(int64(n), room)]...)
		}
		if err != nil {
			return string(buf)
		}
	}
}
