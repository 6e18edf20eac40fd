//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/goleak"

	"github.com/codewhale-ls/codewhale-ls/internal/childtest"
)

// asServer, set in a child's environment, makes this test binary run
// main(): the tests below start the real program as a separate process,
// as an editor does.
const asServer = "CODEWHALE_LS_TEST_AS_MAIN"

// TestMain ends every process the tests started (childtest), and gives servers run in this process (serve through runCLI)
// a runtime directory of their own for the approval sockets, never the
// user's; the child processes get theirs in serverCommand.
func TestMain(m *testing.M) {
	if os.Getenv(asServer) == "1" {
		main()
	}
	dir, err := os.MkdirTemp("", "cwcmd")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	// Release detection's cache (internal/releasecache) too.
	os.Setenv("XDG_CACHE_HOME", dir)
	code := childtest.Run(m)
	if err := goleak.Find(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "goroutines left running:", err)
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// serverCommand is codewhale-ls with args, in an environment of temporary
// directories only (HOME, CODEWHALE_HOME, XDG_CACHE_HOME): never the real
// $HOME.
func serverCommand(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(self, args...)
	cmd.Env = []string{asServer + "=1", "HOME=" + home, "CODEWHALE_HOME=" + filepath.Join(home, ".codewhale"), "XDG_RUNTIME_DIR=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "PATH=" + os.Getenv("PATH")}
	return cmd, home
}

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// editorPipes is the editor's end of a server's stdio. Its Close leaves
// stdin open, as Neovim does after the server's stdout ends: the test
// closes it only once the server has exited.
type editorPipes struct {
	io.Reader
	io.Writer
}

func (editorPipes) Close() error { return nil }

// blockingPipe is a pipe in blocking mode, as an editor built on libuv
// gives its child for stdin (os.Pipe's are non-blocking, and a Go child
// would then read stdin through the poller, where Close interrupts).
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	syscall.ForkLock.RLock()
	err := syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "stdin-writer")
}

// TestServeExitsOnExit: after shutdown and exit the process ends at once,
// with stdin still open (Neovim closes it only after the process ended),
// and says nothing on stderr: an editor records stderr as errors.
func TestServeExitsOnExit(t *testing.T) {
	cmd, _ := serverCommand(t, "serve", "--stdio")
	childStdin, stdin := blockingPipe(t)
	defer stdin.Close()
	cmd.Stdin = childStdin
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	err = cmd.Start()
	childStdin.Close()
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()

	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(editorPipes{stdout, stdin}))
	conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, protocol.MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not exit")
	}
	// The server warns on stderr when the transport did not close within
	// its grace period: that is the wait this test is about.
	if s := stderr.String(); strings.TrimSpace(s) != "" {
		t.Errorf("stderr after a clean exit: %s", s)
	}
}
