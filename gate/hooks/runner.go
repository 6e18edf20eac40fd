package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/procgroup"
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
	// Stdout is what the verdict reads of the hook's stdout. ShellRunner
	// keeps only the fields the fold reads (reduceStdout); parseReply gives
	// the same reply for that as for the whole output.
	Stdout   string
	Err      string // why there is no exit code; never shown to the model
	TimedOut bool
}

// drainGrace bounds the read of what is left in a hook's stdout once its
// shell exited and its group was killed: only a process that left the
// group (setsid) can hold the pipe open longer.
const drainGrace = 500 * time.Millisecond

// ShellRunner runs hooks with the system shell in their own process group.
type ShellRunner struct{}

// Run waits, as Codewhale does, for the hook's shell to exit, not for its
// stdout to close: then it kills the hook's process group, so nothing the
// hook left running (`sleep 1000 &`) outlives the call, and reads what is
// left in the pipe. When the timeout passes or ctx ends first, the group is
// killed at once. Stdout is read while the hook runs, all of it, in
// bounded memory.
func (ShellRunner) Run(ctx context.Context, h Hook, env []string, dir string, timeout time.Duration) Result {
	stdout, writer, err := os.Pipe()
	if err != nil {
		return Result{Err: "failed to spawn hook: " + err.Error()}
	}
	cmd := shellCommand(h.Command)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	cmd.Stdout = writer // an *os.File: Wait then owns no copying goroutine
	procgroup.Own(cmd)
	err = cmd.Start()
	writer.Close()
	if err != nil {
		stdout.Close()
		return Result{Err: "failed to spawn hook: " + err.Error()}
	}
	defer stdout.Close()

	pipe := &drainingReader{f: stdout, hardStop: time.Now().Add(timeout)}
	output := make(chan string, 1)
	go func() { output <- reduceStdout(pipe) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	var waitErr error
	select {
	case waitErr = <-exited:
		procgroup.Kill(cmd)
		pipe.drain()
	case <-timer.C:
		stop(cmd, stdout, exited, output)
		return Result{Err: fmt.Sprintf("Hook timed out after %ds", int64(timeout/time.Second)), TimedOut: true}
	case <-ctx.Done():
		stop(cmd, stdout, exited, output)
		return Result{Err: "hook cancelled: " + ctx.Err().Error()}
	}
	out := <-output
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

// drainingReader reads a hook's stdout. Once the hook's shell has exited
// (drain), every read may wait at most drainGrace for more data, and none
// past the hook's timeout: what the hook wrote is in the pipe and is read
// however long the reader takes over it (a deadline set once, at the exit,
// would fail the reads of data already there on a loaded machine and turn
// a deny into a missing verdict), while a process that left the group and
// keeps the pipe open without writing ends the read after drainGrace.
type drainingReader struct {
	f        *os.File
	hardStop time.Time
	draining atomic.Bool
}

// drain starts the bounded reads, waking a read that waits now.
func (r *drainingReader) drain() {
	r.draining.Store(true)
	r.renew()
}

func (r *drainingReader) renew() {
	deadline := time.Now().Add(drainGrace)
	if deadline.After(r.hardStop) {
		deadline = r.hardStop
	}
	_ = r.f.SetReadDeadline(deadline)
}

func (r *drainingReader) Read(p []byte) (int, error) {
	if r.draining.Load() {
		r.renew()
	}
	return r.f.Read(p)
}

// stop kills the hook's process group and waits for its goroutines: the
// reader ends when its pipe closes, the waiter once the shell is dead.
func stop(cmd *exec.Cmd, stdout *os.File, exited <-chan error, output <-chan string) {
	procgroup.Kill(cmd)
	stdout.Close()
	<-exited
	<-output
}
