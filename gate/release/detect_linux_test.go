package release_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
	"github.com/codewhale-ls/codewhale-ls/internal/grouptest"
)

// The caller's deadline (the hook's timeout) ends a hanging codewhale
// long before the detector's own timeout, and the choice says so; the
// child's process group is killed.
func TestDetectCallerDeadline(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on this machine")
	}
	pgid := filepath.Join(t.TempDir(), "pgid")
	dir := fakecodewhale.Dir(t, "echo $$ > '"+pgid+"'\n"+sleep+" 30 &\nexec "+sleep+" 30\n")
	d := release.Detector{Timeout: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan release.Choice, 1)
	go func() { done <- d.Detect(ctx, dir) }()
	select {
	case c := <-done:
		if ctx.Err() == nil || c.Release != "" || !strings.Contains(c.Source, "timed out: the caller's deadline passed") {
			t.Errorf("ctx.Err()=%v Detect = %+v", ctx.Err(), c)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Detect did not return after the caller's deadline")
	}
	if b, err := os.ReadFile(pgid); err == nil {
		grouptest.WaitGone(t, string(b))
	}
}
