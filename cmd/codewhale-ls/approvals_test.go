//go:build unix

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The console needs a person at a terminal: without one it says so and
// serves nothing, so no hook ever waits on a console nobody reads.
func TestApprovalsRefusesWithoutATerminal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	var out, errOut bytes.Buffer
	if code := run([]string{"approvals"}, devnull, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "standard input is not a terminal") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if _, err := os.Stat(dir + "/codewhale-ls/console.sock"); err == nil {
		t.Fatal("a console without a terminal listened")
	}
	for _, args := range [][]string{{"approvals", "--alert", "loud"}, {"approvals", "--codewhale-version", "0.0.1"}, {"approvals", "--nope"}} {
		errOut.Reset()
		if code := run(args, devnull, &out, &errOut); code != 1 || !strings.HasPrefix(errOut.String(), "codewhale-ls approvals: ") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}
