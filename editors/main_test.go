// Package editors_test drives the editor integrations under editors/
// (the VS Code extension, the Neovim plugin) against the real server, in
// the real editors where the machine has them. A test that needs a tool a
// plain machine lacks (nvim, node, code-server) skips with a message,
// unless CODEWHALE_E2E=1 (set by .ci/run), under which a missing tool is a
// failure.
package editors_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/childtest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := childtest.Run(m)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	agentcli.RemoveBuilt() // the hook binary of the real-agent tests (Neovim, VS Code, the console)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left running:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// requireTool returns the path of the named program. The tests that
// need one (real editors, node, tmux) run only with CODEWHALE_E2E=1,
// under which a missing program is a failure naming how to install it.
func requireTool(t *testing.T, name, install string) string {
	t.Helper()
	if !e2eRequired() {
		// A user's own nvim or node on PATH is not a reason to spend
		// minutes driving real editors in their `go test ./...`.
		t.Skipf("drives the real %s; runs only with CODEWHALE_E2E=1 (.ci/run sets it)", name)
	}
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CODEWHALE_E2E") == "1" {
		t.Fatalf("CODEWHALE_E2E=1 but %s is not installed (%s)", name, install)
	}
	t.Skipf("%s is not installed (%s); set CODEWHALE_E2E=1 to make that a failure", name, install)
	return ""
}

// e2eRequired reports whether a missing tool or setup is a failure.
func e2eRequired() bool { return os.Getenv("CODEWHALE_E2E") == "1" }

// requireCrossBuilds skips a test that cross-compiles or packages every
// target: minutes of compiling on a cold cache, which belongs to CI
// (CODEWHALE_E2E=1, set by .ci/run) or to whoever asks for it with
// CODEWHALE_CROSS=1, not to a newcomer's `go test ./...`.
func requireCrossBuilds(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s is slow; not in -short", what)
	}
	if !e2eRequired() && os.Getenv("CODEWHALE_CROSS") != "1" {
		t.Skipf("%s takes minutes on a cold build cache; CI runs it (CODEWHALE_E2E=1), or set CODEWHALE_CROSS=1", what)
	}
}

var (
	buildOnce   sync.Once
	builtServer string
	buildErr    error
	buildDir    string
)

// serverBinary builds cmd/codewhale-ls once per test process and returns
// its path; TestMain removes it when the tests end.
func serverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "codewhale-ls-editors-")
		if buildErr != nil {
			return
		}
		builtServer = filepath.Join(buildDir, "codewhale-ls")
		if runtime.GOOS == "windows" {
			builtServer += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", builtServer, "../cmd/codewhale-ls").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtServer
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "go build ./cmd/codewhale-ls: " + e.err.Error() + "\n" + e.out
}
