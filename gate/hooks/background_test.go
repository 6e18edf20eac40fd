package hooks

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// blocking runs until its context ends, counting starts and ends.
type blocking struct{ started, ended atomic.Int32 }

func (b *blocking) Run(ctx context.Context, _ Hook, _ []string, _ string, _ time.Duration) Result {
	b.started.Add(1)
	<-ctx.Done()
	b.ended.Add(1)
	return Result{Err: "cancelled"}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBackgroundQueueAndClose(t *testing.T) {
	base := runtime.NumGoroutine()
	r := &blocking{}
	bg := NewBackground(r)
	h := beforeHook("bg", false)
	for range backgroundWorkers {
		if !bg.Submit(h, nil, "", time.Second) {
			t.Fatal("a free worker refused a hook")
		}
	}
	eventually(t, "both workers busy", func() bool { return r.started.Load() == backgroundWorkers })
	for i := range backgroundQueueSize {
		if !bg.Submit(h, nil, "", time.Second) {
			t.Fatalf("queue refused hook %d of %d", i+1, backgroundQueueSize)
		}
	}
	if bg.Submit(h, nil, "", time.Second) {
		t.Error("a full queue accepted a hook")
	}
	bg.Close()
	if r.ended.Load() != backgroundWorkers || r.started.Load() != backgroundWorkers {
		t.Errorf("started %d ended %d: queued hooks ran after Close", r.started.Load(), r.ended.Load())
	}
	if bg.Submit(h, nil, "", time.Second) {
		t.Error("a closed Background accepted a hook")
	}
	bg.Close()
	eventually(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= base })
}

type panicking struct{ calls atomic.Int32 }

func (p *panicking) Run(context.Context, Hook, []string, string, time.Duration) Result {
	p.calls.Add(1)
	panic("boom")
}

func TestBackgroundSurvivesPanics(t *testing.T) {
	p := &panicking{}
	bg := NewBackground(p)
	defer bg.Close()
	for range 3 {
		bg.Submit(beforeHook("bg", false), nil, "", time.Second)
	}
	eventually(t, "three runs", func() bool { return p.calls.Load() == 3 })
}

func TestBeforeQueuesBackgroundHooks(t *testing.T) {
	r := &blocking{}
	bg := NewBackground(r)
	defer bg.Close()
	h := beforeHook("observer", true) // strict but background: never a gate
	h.Background = true
	got := Before(context.Background(), &scripted{}, bg, Config{Enabled: true, Hooks: []Hook{h}}, bashCall)
	if got.Denied || len(got.Records) != 1 || got.Records[0].Effect != EffectQueued {
		t.Errorf("%+v", got)
	}
	eventually(t, "the hook to start", func() bool { return r.started.Load() == 1 })
}
