package transport

import (
	"errors"
	"io"
	"sync"
)

// batchWriter lets the connection's writers go on while an earlier write
// is in the kernel: the messages written meanwhile leave together in one
// write. A pipelining client gets its results and codewhale/decision
// notifications in fewer, larger writes instead of a system call each.
// Order is kept, and so is backpressure: a writer waits while more than
// maxBuffered bytes are queued.
type batchWriter struct {
	w io.WriteCloser

	mu      sync.Mutex
	changed sync.Cond // queue grew, drained, or the writer closed
	queue   []byte
	spare   []byte // the buffer of the last write, reused
	err     error  // the first failed write; later writes fail with it
	closed  bool
	flushed chan struct{} // closed when the flush loop ends
}

const maxBuffered = 1 << 20

func newBatchWriter(w io.WriteCloser) *batchWriter {
	b := &batchWriter{w: w, flushed: make(chan struct{})}
	b.changed.L = &b.mu
	go b.flushLoop()
	return b
}

var errWriterClosed = errors.New("rpc: write after close")

func (b *batchWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.queue) > maxBuffered && b.err == nil && !b.closed {
		b.changed.Wait()
	}
	switch {
	case b.err != nil:
		return 0, b.err
	case b.closed:
		return 0, errWriterClosed
	}
	b.queue = append(b.queue, p...)
	b.changed.Broadcast()
	return len(p), nil
}

// flushLoop is the one goroutine that writes; it ends when the writer is
// closed and everything queued has been written (or a write failed).
func (b *batchWriter) flushLoop() {
	defer close(b.flushed)
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		for len(b.queue) == 0 && !b.closed {
			b.changed.Wait()
		}
		if len(b.queue) == 0 || b.err != nil {
			return
		}
		out := b.queue
		b.queue = b.spare[:0]
		b.mu.Unlock()
		_, err := b.w.Write(out)
		b.mu.Lock()
		b.spare = out[:0]
		if err != nil {
			b.err = err
			b.queue = nil
		}
		b.changed.Broadcast()
	}
}

// Close writes what is queued, then closes the underlying writer.
func (b *batchWriter) Close() error {
	b.mu.Lock()
	b.closed = true
	b.changed.Broadcast()
	b.mu.Unlock()
	<-b.flushed
	return b.w.Close()
}
