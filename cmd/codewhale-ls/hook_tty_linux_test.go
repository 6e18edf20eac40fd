package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codewhale-ls/codewhale-ls/agents"
)

// openPTY opens a pseudo-terminal and returns its terminal side, the one a
// shell would give a command as standard input.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { _ = ptmx.Close() })
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = tty.Close() })
	return tty
}

// TestHookOnATerminalSaysWhatItReads: a hook started by hand on a terminal
// waited for ever (its read deadline works on pipes, not on a terminal);
// it now says that it reads one agent event on stdin, how to try it, and
// ends with exit 2 at once, for every agent (issue 24, point 10).
func TestHookOnATerminalSaysWhatItReads(t *testing.T) {
	tty := openPTY(t)
	for _, name := range agents.Names() {
		type result struct {
			code        int
			out, errOut string
		}
		done := make(chan result, 1)
		go func() {
			var out, errOut bytes.Buffer
			code := run([]string{"hook", name}, tty, &out, &errOut)
			done <- result{code, out.String(), errOut.String()}
		}()
		select {
		case r := <-done:
			a, _ := agents.Lookup(name)
			if r.code != 2 || r.out != "" {
				t.Errorf("%s: exit %d, stdout %q; want exit 2 and nothing on stdout", name, r.code, r.out)
			}
			for _, want := range []string{"standard input is a terminal", "one " + name + " pre-tool event (a JSON object) on standard input",
				"echo '" + a.Example + "' | codewhale-ls hook " + name} {
				if !strings.Contains(r.errOut, want) {
					t.Errorf("%s: stderr does not say %q:\n%s", name, want, r.errOut)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the hook still waits on a terminal after 10 s", name)
		}
	}
}

// TestHookReadsANonTerminalAsBefore: a character device that is not
// a terminal (/dev/null, what a process started without input gets), are
// read as events, not refused as a terminal.
func TestHookReadsANonTerminalAsBefore(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = null.Close() }()
	var out, errOut bytes.Buffer
	code := run([]string{"hook", "gemini-cli"}, null, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "the hook event is empty") || strings.Contains(errOut.String(), "terminal") {
		t.Errorf("/dev/null: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
