// Package otelexport exports each decision's receipt as an OpenTelemetry
// log record (an event named codewhale_ls.tool_decision) to a team's
// collector over OTLP/HTTP, when the user turns it on (docs/telemetry.md;
// issue 26, "Teams: OpenTelemetry").
//
// Exporting never holds a decision up: Send only queues the receipt (a
// full queue drops it and counts it), one goroutine exports, and Close
// waits for it at most as long as its caller allows, counting what was
// not delivered.
package otelexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
)

const (
	// queueSize bounds the receipts waiting for export: a hook sends one,
	// an editor's server a burst at most; past it a receipt is dropped
	// and counted, never waited for.
	queueSize = 1024
	// batchSize is the most receipts sent in one export request.
	batchSize = 128
	// exportTimeout bounds one export request to a collector that takes
	// the connection but does not answer.
	exportTimeout = 5 * time.Second
	// instrumentationScope names the scope of every record.
	instrumentationScope = "github.com/codewhale-ls/codewhale-ls/approvals/otelexport"
	// answerLimit bounds what is read of a collector's answer: only its
	// status is used.
	answerLimit = 64 << 10
)

// Sink exports receipts to one collector over OTLP/HTTP. Send never
// blocks; Close ends it. A Sink is safe for concurrent use.
type Sink struct {
	// url is where the records go; endpoint names it in reports, its
	// password hidden.
	url, endpoint string
	headers       map[string]string
	resource      []attribute
	client        *http.Client

	// mu orders Send against Close: a receipt is queued only while the
	// queue is open. Nothing under it waits. The queue holds pointers: a
	// buffer of 1024 receipts would be a third of a megabyte that every
	// process exporting allocates and touches.
	mu     sync.RWMutex
	closed bool
	queue  chan *approvals.Receipt

	// stop ends an export in flight when Close runs out of time; done is
	// closed when the exporting goroutine has returned.
	stopCtx context.Context
	stop    context.CancelFunc
	done    chan struct{}

	sent, dropped atomic.Int64
	// lastErr is the last export's error, for Close's report.
	lastErr atomic.Pointer[string]
}

// NewSink is the sink the settings and the environment ask for, or nil,
// nil when exporting is off (the default). getenv reads the environment
// (os.Getenv). The sink's goroutine runs until Close.
func NewSink(s approvals.ExportSettings, getenv func(string) string) (approvals.ReceiptSink, error) {
	c, on, err := resolve(s, getenv)
	if err != nil {
		return nil, fmt.Errorf("exporting decisions to OpenTelemetry: %w", err)
	}
	if !on {
		return nil, nil
	}
	return start(c), nil
}

// start runs the sink exporting as c says. Its client does not retry, nor
// follow a redirect (which would take the headers elsewhere): a receipt
// the collector did not take is counted, and a short-lived hook has no
// time to wait for a retry. TLS, and a proxy named by HTTPS_PROXY or
// HTTP_PROXY, are net/http's defaults.
func start(c config) *Sink {
	// OTEL_RESOURCE_ATTRIBUTES may name another service.version.
	resource := map[string]string{"service.version": buildinfo.Version()}
	maps.Copy(resource, c.resource)
	s := &Sink{
		url:      c.endpoint,
		endpoint: redacted(c.endpoint),
		headers:  c.headers,
		resource: sortedAttributes(resource),
		client: &http.Client{
			Transport:     http.DefaultTransport.(*http.Transport).Clone(),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		queue: make(chan *approvals.Receipt, queueSize),
		done:  make(chan struct{}),
	}
	s.stopCtx, s.stop = context.WithCancel(context.Background())
	go s.run()
	return s
}

// Send queues r for export; when the queue is full or the sink closed, r
// is dropped and counted. It never blocks.
func (s *Sink) Send(r approvals.Receipt) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		s.dropped.Add(1)
		return
	}
	select {
	case s.queue <- &r:
	default:
		s.dropped.Add(1)
	}
}

// run exports what is queued, a batch at a time, until the queue is
// closed and empty.
func (s *Sink) run() {
	defer close(s.done)
	// It grows to what is queued: a hook sends one receipt.
	var batch []approvals.Receipt
	for r := range s.queue {
		batch = append(batch[:0], *r)
	fill:
		for len(batch) < batchSize {
			select {
			case more, ok := <-s.queue:
				if !ok {
					break fill
				}
				batch = append(batch, *more)
			default:
				break fill
			}
		}
		s.export(batch)
	}
}

// export sends batch in one request, counting it sent or dropped.
func (s *Sink) export(batch []approvals.Receipt) {
	n := int64(len(batch))
	if s.stopCtx.Err() != nil {
		// Close gave up waiting: what is left is not sent.
		s.dropped.Add(n)
		return
	}
	if err := s.post(batch); err != nil {
		s.dropped.Add(n)
		msg := err.Error()
		s.lastErr.Store(&msg)
		return
	}
	s.sent.Add(n)
}

// post sends batch as one OTLP/HTTP request in protobuf (wire.go). Its
// error names the endpoint with its password hidden (net/http's errors
// do) and never a header's value.
func (s *Sink) post(batch []approvals.Receipt) error {
	records := make([]logRecord, len(batch))
	for i, r := range batch {
		records[i] = record(r)
	}
	body := encodeRequest(s.resource, scope{instrumentationScope, buildinfo.Version()}, records)
	ctx, cancel := context.WithTimeout(s.stopCtx, exportTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return errors.New("the request could not be made")
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "codewhale-ls/"+buildinfo.Version())
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Read to its end (bounded) so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, answerLimit))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// Close stops taking receipts and waits for those queued to be exported,
// until ctx ends: then the export in flight is cut short and what is left
// is dropped. Its error says how many receipts were not exported and why;
// nil when every one was.
func (s *Sink) Close(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	gaveUp := false
	select {
	case <-s.done:
	case <-ctx.Done():
		gaveUp = true
		s.stop()
		<-s.done
	}
	s.stop()
	s.client.CloseIdleConnections()
	return s.report(gaveUp)
}

// report is Close's error: nil when nothing was dropped. gaveUp: Close
// stopped waiting for the collector.
func (s *Sink) report(gaveUp bool) error {
	dropped := s.dropped.Load()
	if dropped == 0 {
		return nil
	}
	why := "the export queue was full"
	switch p := s.lastErr.Load(); {
	case gaveUp:
		why = "the collector did not answer before codewhale-ls stopped waiting for it"
	case p != nil:
		why = *p
	}
	return &DroppedError{Dropped: dropped, Sent: s.sent.Load(), Endpoint: s.endpoint, Why: why}
}

// DroppedError reports receipts that were not exported.
type DroppedError struct {
	Dropped, Sent int64
	Endpoint      string
	Why           string
}

func (e *DroppedError) Error() string {
	records := "decision records were"
	if e.Dropped == 1 {
		records = "decision record was"
	}
	return fmt.Sprintf("%d of %d %s not exported to the OpenTelemetry collector at %s (%s); the decision log keeps every receipt: check the collector, or turn exporting off (docs/telemetry.md)",
		e.Dropped, e.Dropped+e.Sent, records, e.Endpoint, e.Why)
}

// Reporting is sink whose Close also hands its error, what was not
// exported and why, to report: where the process's person sees it (an
// editor's log, the approval console's terminal). A nil sink stays nil.
func Reporting(sink approvals.ReceiptSink, report func(error)) approvals.ReceiptSink {
	if sink == nil {
		return nil
	}
	return reporting{sink, report}
}

type reporting struct {
	approvals.ReceiptSink
	report func(error)
}

func (r reporting) Close(ctx context.Context) error {
	err := r.ReceiptSink.Close(ctx)
	if err != nil {
		r.report(err)
	}
	return err
}
