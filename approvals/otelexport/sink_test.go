package otelexport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// fakeCollector is an OTLP/HTTP logs endpoint that keeps every request's
// raw body and headers. It does not read the body: what is in it is read
// back with the OpenTelemetry Collector's pdata in e2e/otelcollector,
// whose protobuf runtime the main module's tests would otherwise compile.
type fakeCollector struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
}

func newFakeCollector(t testing.TB) *fakeCollector {
	c := &fakeCollector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || len(body) == 0 || r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		c.headers = append(c.headers, r.Header.Clone())
		c.mu.Unlock()
		// An empty ExportLogsServiceResponse: everything was taken.
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(c.Close)
	return c
}

// wire is every request's body as received.
func (c *fakeCollector) wire() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Join(c.bodies, nil)
}

func newTestSink(t *testing.T, endpoint string) *Sink {
	t.Helper()
	settings := approvals.ExportSettings{Enabled: true, Endpoint: endpoint, Headers: map[string]string{"Authorization": "Bearer " + headerToken}}
	sink, err := NewSink(settings, envOf(map[string]string{resourceAttrsEnv: "team=platform"}))
	if err != nil || sink == nil {
		t.Fatalf("NewSink: %v, %v", sink, err)
	}
	return sink.(*Sink)
}

// headerToken is the token of the test sinks' Authorization header, which
// no report may quote.
const headerToken = "s3cr3t-header-t0ken"

func TestNewSinkIsNilWhenOff(t *testing.T) {
	sink, err := NewSink(approvals.ExportSettings{}, envOf(nil))
	if sink != nil || err != nil {
		t.Fatalf("NewSink with exporting off = %v, %v; want nil, nil", sink, err)
	}
}

// TestSinkSendsTheSettingsHeaders: every request carries the headers
// the settings name. What the requests hold is read back in
// e2e/otelcollector.
func TestSinkSendsTheSettingsHeaders(t *testing.T) {
	collector := newFakeCollector(t)
	sink := newTestSink(t, collector.URL)
	sink.Send(ruleDeny())
	sink.Send(ruleDeny())
	if err := sink.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	collector.mu.Lock()
	defer collector.mu.Unlock()
	if len(collector.headers) == 0 {
		t.Fatal("no request received")
	}
	for _, h := range collector.headers {
		if h.Get("Authorization") != "Bearer "+headerToken {
			t.Errorf("a request without the settings' Authorization header: %v", h)
		}
	}
}

// TestSinkCountsWhatTheCollectorRefused: a collector that answers with an
// error status (here: the token is wrong) took nothing; the report says
// its status, never the header's value.
func TestSinkCountsWhatTheCollectorRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer srv.Close()
	sink := newTestSink(t, srv.URL)
	sink.Send(ruleDeny())
	err := sink.Close(context.Background())
	var dropped *DroppedError
	if !errors.As(err, &dropped) || dropped.Dropped != 1 || dropped.Why != "the collector answered 401 Unauthorized" {
		t.Fatalf("Close: %v; want 1 dropped, the collector's 401", err)
	}
	if strings.Contains(err.Error(), headerToken) {
		t.Errorf("the report quotes the header: %v", err)
	}
}

// TestResourceTakesTheEnvironmentsServiceVersion: a service.version in
// OTEL_RESOURCE_ATTRIBUTES replaces codewhale-ls's, never sent twice.
func TestResourceTakesTheEnvironmentsServiceVersion(t *testing.T) {
	sink, err := NewSink(approvals.ExportSettings{Enabled: true, Endpoint: closedPort(t)}, envOf(map[string]string{resourceAttrsEnv: "service.version=9.9"}))
	if err != nil {
		t.Fatal(err)
	}
	s := sink.(*Sink)
	defer s.Close(context.Background())
	var versions []string
	for _, a := range s.resource {
		if a.key == "service.version" {
			versions = append(versions, a.value.(string))
		}
	}
	if len(versions) != 1 || versions[0] != "9.9" {
		t.Errorf("service.version %q, want the environment's 9.9 once", versions)
	}
}

// closedPort is a local address where nothing listens: a stopped
// collector, whose connections are refused.
func closedPort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

func TestSinkCountsWhatAStoppedCollectorDidNotTake(t *testing.T) {
	// The report names the collector, never a password in its URL.
	endpoint := strings.Replace(closedPort(t), "http://", "http://team:hunter2@", 1)
	sink := newTestSink(t, endpoint)
	for range 3 {
		sink.Send(ruleDeny())
	}
	err := sink.Close(context.Background())
	var dropped *DroppedError
	if !errors.As(err, &dropped) || dropped.Dropped != 3 || dropped.Sent != 0 {
		t.Fatalf("Close: %v; want 3 dropped", err)
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, headerToken) || !strings.Contains(msg, "team:xxxxx@") || !strings.Contains(msg, "3 of 3 decision records were not exported") {
		t.Errorf("Close's report: %s", msg)
	}
}

// hangingCollector takes connections and never answers until the test
// ends: a collector behind a black hole.
func hangingCollector(t *testing.T) string {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL
}

// TestSinkCloseEndsWhenItsCallerStopsWaiting: a collector that never
// answers holds Close only as long as its context, and every receipt
// then counts as dropped; Send never waits, even with the queue full.
func TestSinkCloseEndsWhenItsCallerStopsWaiting(t *testing.T) {
	sink := newTestSink(t, hangingCollector(t))
	const sent = queueSize + batchSize + 50
	for range sent {
		sink.Send(ruleDeny())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := sink.Close(ctx)
	var dropped *DroppedError
	if !errors.As(err, &dropped) || dropped.Dropped != sent || dropped.Sent != 0 || !strings.Contains(dropped.Why, "did not answer") {
		t.Fatalf("Close: %v; want all %d dropped, the collector not answering", err, sent)
	}
	sink.Send(ruleDeny())
	if got := sink.dropped.Load(); got != sent+1 {
		t.Errorf("a receipt sent after Close: %d dropped, want %d", got, sent+1)
	}
}

// BenchmarkSendAndClose is what exporting adds to one hook's decision:
// Send, then Close after the answer is written, against a collector up
// and one stopped (connection refused). About: docs/telemetry.md.
func BenchmarkSendAndClose(b *testing.B) {
	up := newFakeCollector(b)
	for _, c := range []struct{ name, endpoint string }{{"collector-up", up.URL}, {"collector-stopped", closedPort(b)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sink, err := NewSink(approvals.ExportSettings{Enabled: true, Endpoint: c.endpoint}, envOf(nil))
				if err != nil {
					b.Fatal(err)
				}
				sink.Send(ruleDeny())
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_ = sink.Close(ctx)
				cancel()
			}
		})
	}
}
