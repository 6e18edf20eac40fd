package agents

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/benchdata"
)

// BenchmarkHookHostile is the hook flow (HookFlow.Answer: the event's
// decoding, the decision, the log) of each agent's hostile event just
// under MaxEventBytes, decided exactly as Codewhale does with no rules:
// what the flow itself costs on 8 MiB (issue 23). `go run ./bench` runs
// the same events over 1k rules, hardened as well.
func BenchmarkHookHostile(b *testing.B) {
	if benchdata.MaxHookEventBytes != MaxEventBytes {
		b.Fatalf("benchdata.MaxHookEventBytes is %d, MaxEventBytes %d", benchdata.MaxHookEventBytes, MaxEventBytes)
	}
	home, ws := b.TempDir(), b.TempDir()
	for _, e := range benchdata.HostileEvents(ws) {
		agent, _ := Lookup(e.Agent)
		b.Run(e.Name, func(b *testing.B) {
			var snap *config.Snapshot
			flow := HookFlow{
				Agent: agent,
				Flags: func() (HookFlags, error) {
					return HookFlags{Release: func(context.Context, ...string) (release.Choice, error) {
						return release.Requested(release.Newest().Version, release.SourceFlag)
					}}, nil
				},
				Env:   config.MapEnv{"HOME": home},
				Getwd: func() (string, error) { return ws, nil },
				Decide: func(ctx context.Context, opts config.Options, req gate.Request) gate.Decision {
					if snap == nil {
						snap = config.Load(opts)
					}
					return gate.Decide(ctx, snap, req, gate.Deps{Exact: true})
				},
				AskEditor: func(context.Context, remote.Request) (gate.Decision, error) {
					return gate.Decision{}, remote.ErrNoEditor
				},
			}
			b.SetBytes(int64(len(e.Event)))
			for b.Loop() {
				flow.Started = time.Now()
				_ = flow.Answer(bytes.NewReader(e.Event))
			}
		})
	}
}
