//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A log that is a FIFO is exit 1 naming it, at once: listed, followed or
// searched for a receipt.
func TestLogFIFOIsRefusedAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	for _, args := range [][]string{{"log", "--file", fifo}, {"log", "--file", fifo, "--follow"}, {"log", "show", "tabc00defg", "--file", fifo}} {
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			defer close(done)
			code, _, errOut = runCLI(t, "", args...)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%v hangs on a FIFO", args)
		}
		if code != 1 || !strings.Contains(errOut, fifo) || !strings.Contains(errOut, "a FIFO") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
