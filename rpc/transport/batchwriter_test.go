package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowSink records writes, each taking a while, so that writes queue up.
type slowSink struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	fail   error
	closed bool
}

func (s *slowSink) Write(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	s.writes++
	return s.buf.Write(p)
}

func (s *slowSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// TestBatchWriterKeepsOrderAndBatches: messages from one writer arrive in
// order and whole, queued ones leave together, and Close writes the rest.
func TestBatchWriterKeepsOrderAndBatches(t *testing.T) {
	sink := &slowSink{}
	b := newBatchWriter(sink)
	var want strings.Builder
	for i := range 500 {
		msg := fmt.Sprintf("message %d;", i)
		want.WriteString(msg)
		if _, err := b.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sink.buf.String(); got != want.String() {
		t.Fatalf("bytes out of order or lost:\n%.200s", got)
	}
	if sink.writes >= 500 || !sink.closed {
		t.Errorf("%d writes for 500 messages (closed: %v); want them batched", sink.writes, sink.closed)
	}
	if _, err := b.Write([]byte("late")); !errors.Is(err, errWriterClosed) {
		t.Errorf("write after close: %v", err)
	}
}

// TestBatchWriterFailure: a failed write fails every later one, so the
// connection learns the peer is gone.
func TestBatchWriterFailure(t *testing.T) {
	sink := &slowSink{fail: io.ErrClosedPipe}
	b := newBatchWriter(sink)
	defer b.Close()
	b.Write([]byte("lost"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := b.Write([]byte("x")); errors.Is(err, io.ErrClosedPipe) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("writes still succeed after the sink failed")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBatchWriterBackpressure: a writer waits while too much is queued
// for a peer that does not read.
func TestBatchWriterBackpressure(t *testing.T) {
	r, w := io.Pipe()
	b := newBatchWriter(w)
	big := make([]byte, maxBuffered+1)
	wrote := make(chan struct{})
	go func() {
		b.Write(big) // taken by the flush loop, which blocks in the pipe
		b.Write(big) // queued beyond the bound
		b.Write(big) // must wait
		close(wrote)
	}()
	select {
	case <-wrote:
		t.Fatal("writes did not wait for a peer that does not read")
	case <-time.After(100 * time.Millisecond):
	}
	go io.Copy(io.Discard, r)
	<-wrote
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
