package editortest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// IdleCost is what a language server costs while its editor is open and
// nobody types (docs/performance.md, "Idle server").
type IdleCost struct {
	// RSSKiB is its resident memory at the end of the window.
	RSSKiB int
	// WakeupsPerSecond are its threads' context switches, voluntary and
	// involuntary, per second over the window: each is the process
	// woken (a timer, a poll, a signal) or put off a CPU.
	WakeupsPerSecond float64
	// Threads are its OS threads at the end of the window.
	Threads int
	// Goroutines are counted in the stack dump SIGQUIT makes the Go
	// runtime print, which also ends the process.
	Goroutines int
}

// Idle starts server (an unstarted `codewhale-ls serve --stdio`, its Env
// set), initializes it for workspace as c declares, waits settle (the
// start-up work: the release detection, the first checks), measures it
// over window from /proc (Linux only), and ends it with SIGQUIT to count
// its goroutines. It is no test: benchmarks and `go run ./bench` report
// what it measures.
func Idle(server *exec.Cmd, workspace string, c Client, settle, window time.Duration) (IdleCost, error) {
	var cost IdleCost
	server.Env = append(server.Env, "GOTRACEBACK=all")
	stdin, err := server.StdinPipe()
	if err != nil {
		return cost, err
	}
	stdout, err := server.StdoutPipe()
	if err != nil {
		return cost, err
	}
	var stderr bytes.Buffer
	server.Stderr = &stderr
	if err := server.Start(); err != nil {
		return cost, err
	}
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return nil, nil // an editor that shows nothing and answers null
	})
	// Ends the process whatever happened, then the connection (its
	// reader ends with the process's stdout).
	defer func() {
		_ = server.Process.Kill()
		<-exited
		_ = conn.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	capabilities := c.Capabilities
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{
		"processId": nil, "rootUri": "file://" + workspace, "capabilities": capabilities, "initializationOptions": c.Options,
	}, nil); err != nil {
		return cost, fmt.Errorf("initialize: %w", err)
	}
	if err := conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		return cost, err
	}
	if _, err := conn.Call(ctx, "codewhale/status", nil, nil); err != nil {
		return cost, fmt.Errorf("codewhale/status: %w", err)
	}
	time.Sleep(settle)
	pid := server.Process.Pid
	before, err := contextSwitches(pid)
	if err != nil {
		return cost, err
	}
	start := time.Now()
	time.Sleep(window)
	after, err := contextSwitches(pid)
	if err != nil {
		return cost, err
	}
	cost.WakeupsPerSecond = float64(after-before) / time.Since(start).Seconds()
	status, err := procStatus(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return cost, err
	}
	cost.RSSKiB, cost.Threads = status["VmRSS"], status["Threads"]
	if err := server.Process.Signal(syscall.SIGQUIT); err != nil {
		return cost, err
	}
	select {
	case <-exited:
		exited <- nil // for the deferred wait
	case <-time.After(10 * time.Second):
		return cost, errors.New("the server did not end on SIGQUIT")
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "goroutine ") && strings.HasSuffix(line, ":") {
			cost.Goroutines++
		}
	}
	return cost, nil
}

// contextSwitches sums every thread's voluntary and involuntary context
// switches (/proc/PID/status counts the main thread's alone).
func contextSwitches(pid int) (int, error) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no /proc/%d/task/*/status (Linux only): %v", pid, err)
	}
	total := 0
	for _, path := range tasks {
		fields, err := procStatus(path)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		total += fields["voluntary_ctxt_switches"] + fields["nonvoluntary_ctxt_switches"]
	}
	return total, nil
}

// procStatus reads the numeric fields of a /proc status file (kB units
// dropped).
func procStatus(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fields := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB")); err == nil {
			fields[name] = n
		}
	}
	return fields, sc.Err()
}

// IdleServer measures bin (codewhale-ls) serving a repository made under
// dir as the Neovim plugin starts it (approvals = "codewhale",
// approvalsAsync), with a Codewhale home of its own and no `codewhale`
// on PATH. With policies the repository has a .codewhale/config.toml of
// its own, so it is linted and watched; without, it is only served.
func IdleServer(bin, dir string, policies bool, settle, window time.Duration) (IdleCost, error) {
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	files := map[string]string{
		filepath.Join(repo, ".git", "HEAD"): "ref: refs/heads/main\n",
		filepath.Join(home, ".codewhale", "config.toml"): fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n",
			filepath.Join(dir, "managed.toml"), filepath.Join(dir, "requirements.toml")),
	}
	if policies {
		files[filepath.Join(repo, ".codewhale", "config.toml")] = "approval_policy = \"on-request\"\n"
		files[filepath.Join(home, ".codewhale", "permissions.toml")] = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"allow\"\n"
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return IdleCost{}, err
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return IdleCost{}, err
		}
	}
	// Short, as a socket's path must be (103 bytes).
	runtime, err := os.MkdirTemp("", "cwidle")
	if err != nil {
		return IdleCost{}, err
	}
	defer os.RemoveAll(runtime)
	server := exec.Command(bin, "serve", "--stdio")
	server.Dir = repo
	server.Env = []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtime, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "PATH=/usr/bin:/bin"}
	nvim := Client{Options: map[string]any{"approvals": "codewhale", "approvalsAsync": true, "decisionLog": false}}
	return Idle(server, repo, nvim, settle, window)
}
