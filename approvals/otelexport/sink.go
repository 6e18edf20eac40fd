// Package otelexport exports each decision's receipt as an OpenTelemetry
// log record (an event named codewhale_ls.tool_decision) to a team's
// collector over OTLP, when the user turns it on (docs/telemetry.md;
// issue 26, "Teams: OpenTelemetry").
//
// Exporting never holds a decision up: Send only queues the receipt (a
// full queue drops it and counts it), one goroutine exports, and Close
// waits for it at most as long as its caller allows, counting what was
// not delivered.
package otelexport

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
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
	// scopeName is the instrumentation scope of every record.
	scopeName = "github.com/codewhale-ls/codewhale-ls/approvals/otelexport"
)

// Sink exports receipts to one collector. Send never blocks; Close ends
// it. A Sink is safe for concurrent use.
type Sink struct {
	// endpoint names the collector in reports, its password hidden.
	endpoint string
	exporter sdklog.Exporter
	provider *sdklog.LoggerProvider
	logger   log.Logger
	taken    *takeProcessor

	// mu orders Send against Close: a receipt is queued only while the
	// queue is open. Nothing under it waits.
	mu     sync.RWMutex
	closed bool
	queue  chan approvals.Receipt

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
	silenceOnce.Do(func() {
		otel.SetLogger(logr.Discard())
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	})
	exporter, err := newExporter(c)
	if err != nil {
		return nil, fmt.Errorf("exporting decisions to OpenTelemetry at %s: %w", redacted(c.endpoint), err)
	}
	return start(c, exporter), nil
}

// newExporter is the OTLP exporter of c's protocol. It does not retry: a
// receipt the collector did not take is counted, and a short-lived hook
// has no time to wait for a retry.
func newExporter(c config) (sdklog.Exporter, error) {
	ctx := context.Background()
	if c.protocol == protocolGRPC {
		return otlploggrpc.New(ctx,
			otlploggrpc.WithEndpointURL(c.endpoint),
			otlploggrpc.WithHeaders(c.headers),
			otlploggrpc.WithTimeout(exportTimeout),
			otlploggrpc.WithRetry(otlploggrpc.RetryConfig{Enabled: false}),
		)
	}
	return otlploghttp.New(ctx,
		otlploghttp.WithEndpointURL(c.endpoint),
		otlploghttp.WithHeaders(c.headers),
		otlploghttp.WithTimeout(exportTimeout),
		otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}),
	)
}

// silenceOnce turns off the OpenTelemetry SDK's own reports on stderr:
// a hook's stderr is read by its agent (for some, shown to the model),
// and every failure the sink sees is counted and reported by Close.
var silenceOnce sync.Once

// start runs the sink exporting with exporter.
func start(c config, exporter sdklog.Exporter) *Sink {
	attrs := []attribute.KeyValue{attribute.String("service.version", gate.Version)}
	for k, v := range c.resource {
		attrs = append(attrs, attribute.String(k, v))
	}
	taken := &takeProcessor{}
	provider := sdklog.NewLoggerProvider(
		sdklog.WithResource(resource.NewSchemaless(attrs...)),
		sdklog.WithProcessor(taken),
	)
	s := &Sink{
		endpoint: redacted(c.endpoint),
		exporter: exporter,
		provider: provider,
		logger:   provider.Logger(scopeName, log.WithInstrumentationVersion(gate.Version)),
		taken:    taken,
		queue:    make(chan approvals.Receipt, queueSize),
		done:     make(chan struct{}),
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
	case s.queue <- r:
	default:
		s.dropped.Add(1)
	}
}

// run exports what is queued, a batch at a time, until the queue is
// closed and empty.
func (s *Sink) run() {
	defer close(s.done)
	batch := make([]approvals.Receipt, 0, batchSize)
	for r := range s.queue {
		batch = append(batch[:0], r)
	fill:
		for len(batch) < batchSize {
			select {
			case more, ok := <-s.queue:
				if !ok {
					break fill
				}
				batch = append(batch, more)
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
	for _, r := range batch {
		s.logger.Emit(s.stopCtx, record(r))
	}
	ctx, cancel := context.WithTimeout(s.stopCtx, exportTimeout)
	defer cancel()
	if err := s.exporter.Export(ctx, s.taken.take()); err != nil {
		s.dropped.Add(n)
		msg := err.Error()
		s.lastErr.Store(&msg)
		return
	}
	s.sent.Add(n)
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
	// The exporter and provider hold no records now; shutting them down
	// closes their connections, and waits for nothing.
	shutdown, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = s.exporter.Shutdown(shutdown)
	_ = s.provider.Shutdown(shutdown)
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

// takeProcessor holds the records the sink's logger emits until the
// exporting goroutine takes them: that goroutine is the only one that
// emits, so a batch is exactly what it emitted since its last take.
type takeProcessor struct {
	mu      sync.Mutex
	records []sdklog.Record
}

func (p *takeProcessor) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }

func (p *takeProcessor) OnEmit(_ context.Context, r *sdklog.Record) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = append(p.records, r.Clone())
	return nil
}

func (p *takeProcessor) take() []sdklog.Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.records
	p.records = nil
	return out
}

func (p *takeProcessor) Shutdown(context.Context) error   { return nil }
func (p *takeProcessor) ForceFlush(context.Context) error { return nil }

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
