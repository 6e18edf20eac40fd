package hooks

import (
	"context"
	"sync"
	"time"
)

// Codewhale's background hook queue: 32 slots served by 2 workers.
const (
	backgroundQueueSize = 32
	backgroundWorkers   = 2
)

// Background runs hooks nobody waits for. It owns its workers: Close
// stops them and kills the hooks they are running.
type Background struct {
	runner Runner
	ctx    context.Context
	cancel context.CancelFunc
	queue  chan backgroundJob
	done   sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

type backgroundJob struct {
	hook    Hook
	env     []string
	dir     string
	timeout time.Duration
}

// NewBackground starts the workers; call Close when done.
func NewBackground(runner Runner) *Background {
	ctx, cancel := context.WithCancel(context.Background())
	b := &Background{runner: runner, ctx: ctx, cancel: cancel, queue: make(chan backgroundJob, backgroundQueueSize)}
	b.done.Add(backgroundWorkers)
	for range backgroundWorkers {
		go b.work()
	}
	return b
}

// Submit queues a hook and reports whether it was queued: a full queue
// or a closed Background drops it, as Codewhale does.
func (b *Background) Submit(h Hook, env []string, dir string, timeout time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	select {
	case b.queue <- backgroundJob{hook: h, env: env, dir: dir, timeout: timeout}:
		return true
	default:
		return false
	}
}

// Close discards queued hooks, kills running ones and waits for the
// workers to end. It is safe to call more than once.
func (b *Background) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.done.Wait()
}

func (b *Background) work() {
	defer b.done.Done()
	for {
		select {
		case <-b.ctx.Done():
			return
		case job := <-b.queue:
			if b.ctx.Err() != nil {
				return
			}
			b.run(job)
		}
	}
}

// run isolates a panicking runner: a background hook never has a verdict.
func (b *Background) run(job backgroundJob) {
	defer func() { _ = recover() }()
	b.runner.Run(b.ctx, job.hook, job.env, job.dir, job.timeout)
}
