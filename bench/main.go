// Command bench prints, in one run on this machine, every ratio that
// matters next to its target (docs/performance.md): a decision per
// Codewhale release at 1k and 10k rules, the memory of a 10k-rule policy,
// a receipt appended to the decision log, codewhale/authorize against a
// trivial request on the same pipe, a hook call as a process against
// `codewhale-ls version`, `check` against
// taplo and tombi where they are installed, and what an idle `serve`
// costs (memory, wake-ups, goroutines); then the hostile inputs
// (internal/benchdata.HostileCommands, HostileEvents), each decision's
// worst time.
//
//	go run ./bench
//	go run ./bench -hostile -run 'cmdsub|heredoc'   # the hostile section alone
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/benchdata"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
	"github.com/codewhale-ls/codewhale-ls/internal/editortest"
	"github.com/codewhale-ls/codewhale-ls/rpc"
)

// row is one line of the table.
type row struct {
	what, value, target string
	met                 string // "yes", "no" or "" (no target)
}

func main() {
	hostileOnly := flag.Bool("hostile", false, "only the hostile section")
	only := flag.String("run", "", "only the hostile inputs whose names match this regular expression")
	oneCell := flag.String("cell", "", "measure one hostile cell, NAME/RELEASE/MODE, and print its worst time in ns (what the hostile section runs)")
	flag.Parse()
	if *oneCell != "" {
		cell(*oneCell)
		return
	}
	match, err := regexp.Compile(*only)
	if err != nil {
		fail(err)
	}
	root, err := os.MkdirTemp("", "codewhale-bench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(root)
	var rows []row
	if *hostileOnly {
		printTable(hostile(match))
		return
	}
	for _, n := range []int{1000, 10000} {
		for _, r := range release.Implemented {
			rows = append(rows, decision(root, r, n))
		}
	}
	rows = append(rows, memory(root, 10000))
	rows = append(rows, decisionLogAppend(root)...)
	rows = append(rows, receiptBuild()...)
	rows = append(rows, authorizeRatio(root))
	bin := build(root)
	rows = append(rows, hookRatio(root, bin))
	rows = append(rows, checks(root, bin)...)
	rows = append(rows, idle(root, bin)...)
	rows = append(rows, hostile(match)...)
	printTable(rows)
}

// printTable writes the table.
func printTable(rows []row) {
	fmt.Printf("codewhale-ls %s, %s/%s, %d CPUs, %s\n\n", buildinfo.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Println("| measure | here | target | met |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s |\n", r.what, r.value, r.target, r.met)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

// world is a home and a workspace with n generated rules, hermetic (no
// /etc, no user files).
type world struct{ home, ws, config string }

func newWorld(root string, n int, name string) world {
	dir := filepath.Join(root, name)
	w := world{home: filepath.Join(dir, "home"), ws: filepath.Join(dir, "ws")}
	w.config = filepath.Join(w.home, ".codewhale", "config.toml")
	write(w.config, fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n", filepath.Join(dir, "managed.toml"), filepath.Join(dir, "requirements.toml")))
	write(filepath.Join(w.home, ".codewhale", "permissions.toml"), benchdata.Permissions(n))
	write(filepath.Join(w.ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	return w
}

func write(path, text string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		fail(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		fail(err)
	}
}

func (w world) load(r release.Release) *config.Snapshot {
	return config.Load(config.Options{ConfigFlag: w.config, Workspace: w.ws, Env: config.MapEnv{"HOME": w.home}, Release: r})
}

// decision is gate.Decide of `cargo test --workspace` (nine layers, an ask)
// at release r over n rules; the targets are issue 16's.
func decision(root string, r release.Release, n int) row {
	w := newWorld(root, n, fmt.Sprintf("decide-%s-%d", r.Version, n))
	snap := w.load(r)
	req := gate.Request{Tool: "bash", Input: map[string]any{"command": "cargo test --workspace"}, Workspace: w.ws}
	ctx := context.Background()
	if d := gate.Decide(ctx, snap, req, gate.Deps{}); len(d.Trace) != 9 {
		fail(fmt.Errorf("not a nine-layer decision at %s: %s at %d", r.Version, d.Decision, d.Layer))
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = gate.Decide(ctx, snap, req, gate.Deps{})
		}
	})
	target := map[int]time.Duration{1000: 10 * time.Microsecond, 10000: 50 * time.Microsecond}[n]
	per := time.Duration(res.NsPerOp())
	return row{fmt.Sprintf("decision, Codewhale %s, %dk rules", r.Version, n/1000),
		fmt.Sprintf("%.1f µs, %d allocs", float64(per)/1e3, res.AllocsPerOp()), "≤ " + target.String(), yes(per <= target)}
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// memory is the heap a loaded 10k-rule snapshot keeps.
func memory(root string, n int) row {
	w := newWorld(root, n, "memory")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	snap := w.load(release.Newest())
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(snap)
	return row{fmt.Sprintf("memory of a loaded policy, %dk rules", n/1000), fmt.Sprintf("%.1f MiB", float64(after.HeapAlloc-before.HeapAlloc)/(1<<20)), "as today or less", ""}
}

// authorizeRatio runs the server in this process over OS pipes (as an
// editor's stdio) and compares codewhale/authorize throughput, 8 in
// flight, with a trivial request's on the same connection.
func authorizeRatio(root string) row {
	w := newWorld(root, 10, "authorize")
	c2sR, c2sW, _ := os.Pipe()
	s2cR, s2cW, _ := os.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- rpc.Serve(context.Background(), c2sR, s2cW, rpc.Options{Env: config.MapEnv{"HOME": w.home}, CodewhaleVersion: release.Newest().Version})
	}()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{s2cR, c2sW}))
	conn.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	ctx := context.Background()
	var res json.RawMessage
	if _, err := conn.Call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": "file://" + w.ws, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"config": w.config, "decisionLog": filepath.Join(root, "authorize-log", "decisions.jsonl")}}, &res); err != nil {
		fail(err)
	}
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		fail(err)
	}
	call := map[string]any{"tool": "bash", "input": map[string]any{"command": "ls"}, "workspace": w.ws}
	authorize := func() error {
		var raw json.RawMessage
		if _, err := conn.Call(ctx, "codewhale/authorize", call, &raw); err != nil {
			return err
		}
		if !bytes.Contains(raw, []byte(`"decision":"allow"`)) {
			return fmt.Errorf("not allowed: %s", raw)
		}
		return nil
	}
	trivial := func() error {
		var raw json.RawMessage
		_, err := conn.Call(ctx, "codewhale/noSuchMethod", nil, &raw)
		if err == nil {
			return fmt.Errorf("an unknown method was answered")
		}
		return nil
	}
	_ = pipelined(500, authorize) // warm up
	_ = pipelined(500, trivial)
	auth := pipelined(20000, authorize)
	triv := pipelined(20000, trivial)
	var shut json.RawMessage
	_, _ = conn.Call(ctx, "shutdown", nil, &shut)
	_ = conn.Notify(ctx, "exit", nil)
	conn.Close()
	<-served
	ratio := auth / triv
	return row{"codewhale/authorize ÷ trivial request, same pipe, 8 in flight", fmt.Sprintf("%.2f (%.0f/s ÷ %.0f/s)", ratio, auth, triv), "≥ 0.5", yes(ratio >= 0.5)}
}

// pipelined runs n calls, 8 in flight, and returns calls per second.
func pipelined(n int, call func() error) float64 {
	rate, _, err := benchdata.Pipelined(n, 8, call)
	if err != nil {
		fail(err)
	}
	return rate
}

type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error {
	p.ReadCloser.Close()
	return p.WriteCloser.Close()
}

// build compiles codewhale-ls for the process measurements.
func build(root string) string {
	bin := filepath.Join(root, "codewhale-ls")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/codewhale-ls")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("building codewhale-ls (run from the repository's root): %w", err))
	}
	return bin
}

// median runs the command runs times and returns its median wall time.
func median(runs int, dir string, env []string, stdin string, name string, args ...string) time.Duration {
	times := make([]time.Duration, runs)
	for i := range times {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		start := time.Now()
		_ = cmd.Run() // check exits non-zero on findings
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[runs/2]
}

// hookRatio is a Claude Code hook call decided by the process (an allowed
// `ls`, no editor) against the process doing nothing but printing its
// version.
func hookRatio(root, bin string) row {
	w := newWorld(root, 1000, "hook")
	env := []string{"HOME=" + w.home, "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + filepath.Join(root, "run")}
	event := fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":%q,"permission_mode":"default"}`, w.ws)
	hook := median(21, w.ws, env, event, bin, "hook", "claude-code", "--codewhale-version", release.Newest().Version)
	version := median(21, w.ws, env, "", bin, "version")
	return row{"hook call as a process ÷ `codewhale-ls version`", fmt.Sprintf("%.1f× (%.1f ms ÷ %.1f ms)", float64(hook)/float64(version), ms(hook), ms(version)), "as today or less", ""}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// checks is `codewhale-ls check` of a permissions.toml of n rules against
// taplo's and tombi's own check of the same file, as processes.
func checks(root, bin string) []row {
	var rows []row
	for _, n := range []int{1000, 2000, 10000} {
		w := newWorld(root, n, fmt.Sprintf("check-%d", n))
		file := filepath.Join(w.home, ".codewhale", "permissions.toml")
		env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
		ours := median(7, w.ws, env, "", bin, "check", "--workspace", w.ws, "--codewhale-version", release.Newest().Version)
		value := fmt.Sprintf("%.0f ms", ms(ours))
		for _, other := range []struct{ name, cmd, arg string }{{"taplo", "taplo", "check"}, {"tombi", "tombi", "lint"}} {
			path, err := exec.LookPath(other.cmd)
			if err != nil {
				value += fmt.Sprintf("; %s not installed", other.name)
				continue
			}
			theirs := median(7, w.ws, env, "", path, other.arg, file)
			value += fmt.Sprintf("; %s %.0f ms (%.2f×)", other.name, ms(theirs), float64(ours)/float64(theirs))
		}
		rows = append(rows, row{fmt.Sprintf("`check`, %dk rules (codewhale-ls; others on the same file)", n/1000), value, "as today or less", ""})
	}
	return rows
}

// Idle server targets (docs/performance.md, "Idle server"): an editor
// keeps one server per repository open all day.
const (
	idleRSSTargetKiB  = 20 << 10
	idleWakeupsTarget = 2.0
)

// idle is `codewhale-ls serve` initialized as Neovim starts it and then
// left alone, for a repository without policy files of its own and one
// with them (editortest.IdleServer, as BenchmarkIdleServer).
func idle(root, bin string) []row {
	var rows []row
	for _, c := range []struct {
		name     string
		policies bool
	}{{"without policy files (served only)", false}, {"with policy files (linted, watched)", true}} {
		dir := filepath.Join(root, fmt.Sprintf("idle-%v", c.policies))
		cost, err := editortest.IdleServer(bin, dir, c.policies, 2*time.Second, 10*time.Second)
		if err != nil {
			fail(fmt.Errorf("idle server: %w", err))
		}
		rows = append(rows, row{"idle `serve`, a repository " + c.name,
			fmt.Sprintf("%.1f MiB, %.1f wake-ups/s, %d goroutines, %d threads", float64(cost.RSSKiB)/1024, cost.WakeupsPerSecond, cost.Goroutines, cost.Threads),
			fmt.Sprintf("< %d MiB, < %.0f wake-ups/s", idleRSSTargetKiB>>10, idleWakeupsTarget),
			yes(cost.RSSKiB < idleRSSTargetKiB && cost.WakeupsPerSecond < idleWakeupsTarget)})
	}
	return rows
}
