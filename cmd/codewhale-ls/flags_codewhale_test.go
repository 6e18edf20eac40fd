//go:build unix

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
)

// Release detection ends at the caller's deadline (the hook's timeout),
// not at the detector's own 2 s: a context already past its deadline gets
// the default release without waiting for a codewhale that never answers.
func TestCodewhaleDetectionHonoursTheDeadline(t *testing.T) {
	t.Setenv("PATH", fakecodewhale.Dir(t, "exec sleep 30\n"))
	fs, err := parseFlags(nil, commonFlags, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now())
	defer cancel()
	c, err := fs.codewhale(ctx, t.TempDir())
	if err != nil || !strings.Contains(c.Source, "the caller's deadline passed") {
		t.Errorf("codewhale = %+v, %v", c, err)
	}
}
