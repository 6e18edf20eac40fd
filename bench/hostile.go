package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/benchdata"
)

// hostileTarget is issue 23's bound on one decision, whatever its text.
const hostileTarget = 50 * time.Millisecond

// hostileRuns is how many times each hostile decision runs: the row is
// the worst of them. Once they add up to a second no more are run.
const hostileRuns = 5

// hostileCellLimit is how long one cell (its runs and the world's
// loading) may take before it is reported as over the limit.
const hostileCellLimit = 3 * time.Minute

// modes are the two ways a decision is made: Codewhale's engine alone,
// and with the hardening layer.
var modes = []struct {
	name string
	deps gate.Deps
}{{"exact", gate.Deps{Exact: true}}, {"hardened", gate.Deps{}}}

// hostile is the hostile section: for each input of
// benchdata.HostileCommands and HostileEvents whose name only matches,
// the worst decision's processor time (cpuTime) at each release, exact and hardened, over the
// same 1k generated rules as the decision rows. An event is the whole
// hook flow (agents.HookFlow.Answer: decoding, the decision, the log)
// without the process. Each cell runs in a child process (this program,
// -cell), so that a crash or a runaway is a cell's result, not the end
// of the table; each row is printed as it is measured.
func hostile(only *regexp.Regexp) []row {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	var names []string
	sizes := map[string]int{}
	for _, h := range benchdata.HostileCommands() {
		names, sizes[h.Name] = append(names, h.Name), len(h.Command)
	}
	for _, e := range benchdata.HostileEvents("/REPO") {
		names, sizes[e.Name] = append(names, e.Name), len(e.Event)
	}
	var rows []row
	for _, name := range names {
		if !only.MatchString(name) {
			continue
		}
		var times []string
		met := true
		for _, m := range modes {
			for _, r := range release.Implemented {
				took, failure := runCell(self, name+"/"+r.Version+"/"+m.name)
				if failure != "" {
					times, met = append(times, failure), false
					continue
				}
				times = append(times, duration(took))
				met = met && took <= hostileTarget
			}
		}
		n := len(release.Implemented)
		r := row{fmt.Sprintf("hostile `%s` (%s), worst decision (CPU) 0.9.10 / 0.10.0 / 0.10.1, exact; hardened", name, bytesize(sizes[name])),
			strings.Join(times[:n], " / ") + "; " + strings.Join(times[n:], " / "), "≤ " + hostileTarget.String(), yes(met)}
		fmt.Fprintf(os.Stderr, "| %s | %s | %s | %s |\n", r.what, r.value, r.target, r.met)
		rows = append(rows, r)
	}
	return rows
}

// runCell runs one cell in a child process: its worst decision time, or
// why there is none (a crash, the limit).
func runCell(self, cell string) (time.Duration, string) {
	ctx, cancel := context.WithTimeout(context.Background(), hostileCellLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "-cell", cell)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return 0, "> " + hostileCellLimit.String()
	case err != nil:
		first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return 0, fmt.Sprintf("crashed (%s)", first)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(stdout.String()), 10, 64)
	if err != nil {
		return 0, "no result: " + stdout.String()
	}
	return time.Duration(ns), ""
}

// cell measures one cell, NAME/RELEASE/MODE, and prints its worst
// decision's processor time in nanoseconds.
func cell(spec string) {
	parts := strings.Split(spec, "/")
	if len(parts) != 3 {
		fail(fmt.Errorf("-cell %q: want NAME/RELEASE/MODE", spec))
	}
	name, version, mode := parts[0], parts[1], parts[2]
	r, ok := release.Of(version)
	if !ok {
		fail(fmt.Errorf("-cell %q: no release %q", spec, version))
	}
	var deps gate.Deps
	switch mode {
	case "exact":
		deps.Exact = true
	case "hardened":
	default:
		fail(fmt.Errorf("-cell %q: no mode %q", spec, mode))
	}
	root, err := os.MkdirTemp("", "codewhale-bench-cell")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(root)
	w := newWorld(root, 1000, "hostile")
	snap := w.load(r)
	run := hostileRun(name, w, snap, r, deps)
	if run == nil {
		fail(fmt.Errorf("no hostile input %q", name))
	}
	var worst, total time.Duration
	for range hostileRuns {
		start, startCPU := time.Now(), cpuTime()
		run()
		took := cpuTime() - startCPU
		worst, total = max(worst, took), total+time.Since(start)
		if total > time.Second {
			break
		}
	}
	fmt.Println(int64(worst))
}

// hostileRun is one decision of the hostile input called name.
func hostileRun(name string, w world, snap *config.Snapshot, r release.Release, deps gate.Deps) func() {
	ctx := context.Background()
	for _, h := range benchdata.HostileCommands() {
		if h.Name == name {
			req := gate.Request{Tool: "bash", Input: map[string]any{"command": h.Command}, Workspace: w.ws}
			return func() { _ = gate.Decide(ctx, snap, req, deps) }
		}
	}
	for _, e := range benchdata.HostileEvents(w.ws) {
		if e.Name != name {
			continue
		}
		agent, ok := agents.Lookup(e.Agent)
		if !ok {
			fail(fmt.Errorf("no agent %q", e.Agent))
		}
		flow := agents.HookFlow{
			Agent: agent,
			Flags: func() (agents.HookFlags, error) { return agents.HookFlags{Config: w.config, Release: fixed(r)}, nil },
			Env:   config.MapEnv{"HOME": w.home},
			Getwd: func() (string, error) { return w.ws, nil },
			Decide: func(ctx context.Context, _ config.Options, req gate.Request) gate.Decision {
				return gate.Decide(ctx, snap, req, deps)
			},
			AskEditor: func(context.Context, remote.Request) (gate.Decision, error) {
				return gate.Decision{}, remote.ErrNoEditor
			},
		}
		return func() {
			flow.Started = time.Now()
			_ = flow.Answer(bytes.NewReader(e.Event))
		}
	}
	return nil
}

// fixed chooses release r, as --codewhale-version does.
func fixed(r release.Release) func(context.Context, ...string) (release.Choice, error) {
	return func(context.Context, ...string) (release.Choice, error) {
		return release.Requested(r.Version, release.SourceFlag)
	}
}

func duration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", ms(d))
	}
	return fmt.Sprintf("%.1f ms", ms(d))
}

func bytesize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
