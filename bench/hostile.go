package main

import (
	"context"
	"fmt"
	"regexp"
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
// the worst of them. A decision slower than a second runs once.
const hostileRuns = 5

// hostile is the hostile section: for each input of
// benchdata.HostileCommands and HostileEvents, the worst decision time at
// each release, exact (Codewhale's engine alone) and hardened, over the
// same 1k generated rules as the decision rows. An event is the whole
// hook flow (agents.HookFlow.Answer: decoding, the decision, the log)
// without the process.
func hostile(root string, only *regexp.Regexp) []row {
	var rows []row
	worlds := map[string]world{}
	snaps := map[string]*config.Snapshot{}
	for _, r := range release.Implemented {
		w := newWorld(root, 1000, "hostile-"+r.Version)
		worlds[r.Version], snaps[r.Version] = w, w.load(r)
	}
	modes := []struct {
		name string
		deps gate.Deps
	}{{"exact", gate.Deps{Exact: true}}, {"hardened", gate.Deps{}}}
	cell := func(run func()) time.Duration {
		var worst, total time.Duration
		for range hostileRuns {
			start := time.Now()
			run()
			took := time.Since(start)
			worst, total = max(worst, took), total+took
			if total > time.Second {
				break
			}
		}
		return worst
	}
	emit := func(name string, size int, times []string, allMet bool) {
		rows = append(rows, row{fmt.Sprintf("hostile `%s` (%s), worst decision 0.9.10 / 0.10.0 / 0.10.1, exact; hardened", name, bytesize(size)),
			strings.Join(times[:len(release.Implemented)], " / ") + "; " + strings.Join(times[len(release.Implemented):], " / "),
			"≤ " + hostileTarget.String(), yes(allMet)})
	}
	ctx := context.Background()
	for _, h := range benchdata.HostileCommands() {
		if !only.MatchString(h.Name) {
			continue
		}
		var times []string
		met := true
		for _, m := range modes {
			for _, r := range release.Implemented {
				req := gate.Request{Tool: "bash", Input: map[string]any{"command": h.Command}, Workspace: worlds[r.Version].ws}
				d := cell(func() { _ = gate.Decide(ctx, snaps[r.Version], req, m.deps) })
				times = append(times, duration(d))
				met = met && d <= hostileTarget
			}
		}
		emit(h.Name, len(h.Command), times, met)
	}
	for _, e := range benchdata.HostileEvents("/REPO") {
		if !only.MatchString(e.Name) {
			continue
		}
		agent, ok := agents.Lookup(e.Agent)
		if !ok {
			fail(fmt.Errorf("no agent %q", e.Agent))
		}
		var times []string
		met := true
		for _, m := range modes {
			for _, r := range release.Implemented {
				w := worlds[r.Version]
				event := []byte(strings.ReplaceAll(string(e.Event), `"/REPO"`, fmt.Sprintf("%q", w.ws)))
				flow := agents.HookFlow{
					Agent:   agent,
					Flags:   func() (agents.HookFlags, error) { return agents.HookFlags{Config: w.config, Release: fixed(r)}, nil },
					Started: time.Now(), Env: config.MapEnv{"HOME": w.home},
					Getwd: func() (string, error) { return w.ws, nil },
					Decide: func(ctx context.Context, _ config.Options, req gate.Request) gate.Decision {
						return gate.Decide(ctx, snaps[r.Version], req, m.deps)
					},
					AskEditor: func(context.Context, remote.Request) (gate.Decision, error) {
						return gate.Decision{}, remote.ErrNoEditor
					},
				}
				d := cell(func() {
					flow.Started = time.Now()
					_ = flow.Answer(strings.NewReader(string(event)))
				})
				times = append(times, duration(d))
				met = met && d <= hostileTarget
			}
		}
		emit(e.Name, len(e.Event), times, met)
	}
	return rows
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
