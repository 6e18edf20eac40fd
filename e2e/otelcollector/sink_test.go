package otelcollector

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/otelexport"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
)

// The requests approvals/otelexport writes by hand (its wire.go), read
// back with the Collector's pdata: the main module's tests do not decode
// them, so that they compile no protobuf runtime.

// otlpEndpoint is an OTLP/HTTP logs endpoint that reads every request as
// the Collector does (plogotlp) and keeps it with its headers.
type otlpEndpoint struct {
	*httptest.Server
	mu       sync.Mutex
	requests []plogotlp.ExportRequest
	headers  []http.Header
}

func newOTLPEndpoint(t *testing.T) *otlpEndpoint {
	e := &otlpEndpoint{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		req := plogotlp.NewExportRequest()
		if err == nil {
			err = req.UnmarshalProto(body)
		}
		if err != nil || r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		e.requests = append(e.requests, req)
		e.headers = append(e.headers, r.Header.Clone())
		e.mu.Unlock()
		// An empty ExportLogsServiceResponse: everything was taken.
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(e.Close)
	return e
}

// received is one log record with its resource and scope.
type received struct {
	record   plog.LogRecord
	resource pcommon.Resource
	scope    pcommon.InstrumentationScope
}

func (e *otlpEndpoint) records() []received {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []received
	for _, req := range e.requests {
		for _, rl := range req.Logs().ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					out = append(out, received{lr, rl.Resource(), sl.Scope()})
				}
			}
		}
	}
	return out
}

// headerToken is the Authorization header's token the test sinks send.
const headerToken = "s3cr3t-header-t0ken"

// export sends receipts through a Sink made as NewSink makes it for a
// team whose OTEL_RESOURCE_ATTRIBUTES is team=platform, and closes it.
func export(t *testing.T, endpoint string, receipts ...approvals.Receipt) {
	t.Helper()
	settings := approvals.ExportSettings{Enabled: true, Endpoint: endpoint, Headers: map[string]string{"Authorization": "Bearer " + headerToken}}
	env := map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "team=platform"}
	sink, err := otelexport.NewSink(settings, func(k string) string { return env[k] })
	if err != nil || sink == nil {
		t.Fatalf("NewSink: %v, %v", sink, err)
	}
	for _, r := range receipts {
		sink.Send(r)
	}
	if err := sink.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// ruleDeny is the receipt of a rule's deny, every field set.
func ruleDeny() approvals.Receipt {
	call, rule := "call_7", "git push"
	return approvals.Receipt{
		V: 1, ID: "k3f9x2ab7q", Time: time.Date(2026, 12, 6, 13, 14, 2, 123456789, time.UTC),
		Agent: "codex", Session: "sess-1", Repo: "/abs/repo", Tool: "exec_shell", CallID: &call,
		Input:    []approvals.ReceiptInput{{Field: "command", Text: "git push origin main", Bytes: 20}},
		Decision: "deny", Layer: 5, LayerName: "permissions", Rule: &rule, Reason: "denied by a rule",
		Decider:   &approvals.Decider{Kind: "rule", Summary: "the rule at permissions.toml:12", File: "/home/u/.codewhale/permissions.toml", Line: 12, Rule: rule},
		Codewhale: "0.10.1", Hardening: "off",
	}
}

func TestSinkExportsOneRecordPerReceipt(t *testing.T) {
	endpoint := newOTLPEndpoint(t)
	allow := ruleDeny()
	allow.Decision, allow.ID, allow.Decider = "allow", "second", &approvals.Decider{Kind: "person", Answer: "once", Where: "Neovim 0.12.0"}
	export(t, endpoint.URL, ruleDeny(), allow)
	records := endpoint.records()
	if len(records) != 2 {
		t.Fatalf("%d records received, want 2", len(records))
	}
	for i, want := range []struct{ id, decision, source string }{{"k3f9x2ab7q", "deny", "config"}, {"second", "allow", "user_temporary"}} {
		r := records[i].record
		attrs := r.Attributes().AsRaw()
		if r.EventName() != otelexport.EventName || r.Body().Str() != otelexport.EventName {
			t.Errorf("record %d: event name %q, body %q", i, r.EventName(), r.Body().Str())
		}
		if attrs["receipt.id"] != want.id || attrs["decision"] != want.decision || attrs["source"] != want.source || attrs["input.command"] != "git push origin main" {
			t.Errorf("record %d: attributes %v, want id %s, decision %s, source %s", i, attrs, want.id, want.decision, want.source)
		}
		if got := r.Timestamp().AsTime(); !got.Equal(ruleDeny().Time) {
			t.Errorf("record %d: time %v, want the decision's", i, got)
		}
		if res := records[i].resource.Attributes().AsRaw(); res["service.name"] != "codewhale-ls" || res["team"] != "platform" || res["service.version"] != buildinfo.Version() {
			t.Errorf("record %d: resource %v", i, res)
		}
	}
	endpoint.mu.Lock()
	defer endpoint.mu.Unlock()
	for _, h := range endpoint.headers {
		if h.Get("Authorization") != "Bearer "+headerToken || h.Get("User-Agent") != "codewhale-ls/"+buildinfo.Version() {
			t.Errorf("a request without the settings' Authorization header or codewhale-ls's User-Agent: %v", h)
		}
	}
}

// attribute is one key and value as OTLP carries it.
type attribute struct {
	key   string
	value any // string, int64 or bool
}

// attributesOf are m's attributes in the order they were received, each
// value as its OTLP kind (a kind other than string, int and bool is
// returned as its pdata.Value, which no want holds).
func attributesOf(m pcommon.Map) []attribute {
	var out []attribute
	for k, v := range m.All() {
		a := attribute{k, v}
		switch v.Type() {
		case pcommon.ValueTypeStr:
			a.value = v.Str()
		case pcommon.ValueTypeInt:
			a.value = v.Int()
		case pcommon.ValueTypeBool:
			a.value = v.Bool()
		}
		out = append(out, a)
	}
	return out
}

// TestRequestReadsBackAsOTLP: what the Sink writes by hand is read by the
// Collector as the same records: every kind of value the mapping makes
// (strings, an empty one, ints, zero among them, the bool of a cut
// input), in order and nothing more; the decision's time and when it was
// exported; severity, event name and body; resource and scope. Whether a
// field was left unknown pdata cannot tell (it skips such fields
// silently), nor can writing the request again with it: it writes the
// fields in another order and adds empty trace and span ids.
func TestRequestReadsBackAsOTLP(t *testing.T) {
	endpoint := newOTLPEndpoint(t)
	full := ruleDeny()
	full.Input[0].Cut = true
	bare := approvals.Receipt{V: 1, ID: "bare", Time: full.Time.Add(time.Second), Tool: "exec_shell", Decision: "allow",
		Input: []approvals.ReceiptInput{{Field: "command"}}}
	before := time.Now()
	export(t, endpoint.URL, full, bare)
	after := time.Now()

	at := "2026-12-06T13:14:02.123456789Z"
	want := [][]attribute{{
		{"event.name", otelexport.EventName}, {"event.timestamp", at}, {"tool_name", "exec_shell"},
		{"decision", "deny"}, {"source", "config"}, {"receipt.id", "k3f9x2ab7q"}, {"layer", int64(5)}, {"layer.name", "permissions"},
		{"call_id", "call_7"}, {"session.id", "sess-1"}, {"agent", "codex"}, {"repo", "/abs/repo"}, {"rule", "git push"},
		{"reason", "denied by a rule"}, {"codewhale.version", "0.10.1"}, {"hardening", "off"},
		{"input.command", "git push origin main"}, {"input.command.bytes", int64(20)}, {"input.command.cut", true},
		{"decider.kind", "rule"}, {"decider.summary", "the rule at permissions.toml:12"},
		{"decider.file", "/home/u/.codewhale/permissions.toml"}, {"decider.line", int64(12)}, {"decider.rule", "git push"},
	}, {
		{"event.name", otelexport.EventName}, {"event.timestamp", "2026-12-06T13:14:03.123456789Z"}, {"tool_name", "exec_shell"},
		{"decision", "allow"}, {"source", "config"}, {"receipt.id", "bare"}, {"layer", int64(0)}, {"layer.name", ""},
		{"input.command.bytes", int64(0)},
	}}

	records := endpoint.records()
	if len(records) != len(want) {
		t.Fatalf("%d records received, want %d", len(records), len(want))
	}
	for i, got := range records {
		r := got.record
		if got, want := r.Timestamp().AsTime(), []time.Time{full.Time, bare.Time}[i]; !got.Equal(want) {
			t.Errorf("record %d: time %v, want %v", i, got, want)
		}
		if observed := r.ObservedTimestamp().AsTime(); observed.Before(before) || observed.After(after) {
			t.Errorf("record %d: observed %v, not between the send %v and the close %v", i, observed, before, after)
		}
		if r.SeverityNumber() != plog.SeverityNumberInfo || r.SeverityText() != "INFO" {
			t.Errorf("record %d: severity %v %q", i, r.SeverityNumber(), r.SeverityText())
		}
		if r.EventName() != otelexport.EventName || r.Body().Type() != pcommon.ValueTypeStr || r.Body().Str() != otelexport.EventName {
			t.Errorf("record %d: event name %q, body %v", i, r.EventName(), r.Body().AsRaw())
		}
		if attrs := attributesOf(r.Attributes()); !slices.Equal(attrs, want[i]) {
			t.Errorf("record %d: attributes\n%v\nwant\n%v", i, attrs, want[i])
		}
		wantResource := []attribute{{"service.name", "codewhale-ls"}, {"service.version", buildinfo.Version()}, {"team", "platform"}}
		if res := attributesOf(got.resource.Attributes()); !slices.Equal(res, wantResource) {
			t.Errorf("record %d: resource %v, want %v", i, res, wantResource)
		}
		if got.scope.Name() != "github.com/codewhale-ls/codewhale-ls/approvals/otelexport" || got.scope.Version() != buildinfo.Version() {
			t.Errorf("record %d: scope %q %q", i, got.scope.Name(), got.scope.Version())
		}
	}

}
