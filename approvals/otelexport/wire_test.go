package otelexport

import (
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"
)

// TestRequestReadsBackAsOTLP: the hand-written request is read by the
// OTLP types generated from opentelemetry-proto as the same records,
// every field and every kind of value, zero values included, with
// nothing unknown left over.
func TestRequestReadsBackAsOTLP(t *testing.T) {
	at := time.Date(2026, 12, 6, 13, 14, 2, 123456789, time.UTC)
	observed := at.Add(time.Millisecond)
	records := []logRecord{
		{time: at, observed: observed, attributes: []attribute{{"s", "text ⟪secret⟫"}, {"empty", ""}, {"n", int64(12)}, {"zero", int64(0)}, {"neg", int64(-3)}, {"yes", true}, {"no", false}}},
		{time: at.Add(time.Second), observed: observed},
	}
	resource := sortedAttributes(map[string]string{"team": "platform", "service.name": "codewhale-ls"})
	body := encodeRequest(resource, scope{"the-scope", "1.2.3"}, records)

	var got logspb.LogsData
	if err := proto.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.ProtoReflect().GetUnknown()) > 0 || len(got.ResourceLogs) != 1 {
		t.Fatalf("request %v", &got)
	}
	rl := got.ResourceLogs[0]
	if attrs := rl.GetResource().GetAttributes(); len(attrs) != 2 || attrs[0].Key != "service.name" || attrs[0].Value.GetStringValue() != "codewhale-ls" || attrs[1].Key != "team" || attrs[1].Value.GetStringValue() != "platform" {
		t.Errorf("resource %v", rl.GetResource())
	}
	if len(rl.ScopeLogs) != 1 || rl.ScopeLogs[0].Scope.GetName() != "the-scope" || rl.ScopeLogs[0].Scope.GetVersion() != "1.2.3" {
		t.Fatalf("scope logs %v", rl.ScopeLogs)
	}
	lrs := rl.ScopeLogs[0].LogRecords
	if len(lrs) != 2 {
		t.Fatalf("%d records, want 2", len(lrs))
	}
	for i, lr := range lrs {
		if lr.TimeUnixNano != uint64(records[i].time.UnixNano()) || lr.ObservedTimeUnixNano != uint64(observed.UnixNano()) {
			t.Errorf("record %d: time %d, observed %d", i, lr.TimeUnixNano, lr.ObservedTimeUnixNano)
		}
		if lr.SeverityNumber != logspb.SeverityNumber_SEVERITY_NUMBER_INFO || lr.SeverityText != "INFO" || lr.EventName != EventName || lr.Body.GetStringValue() != EventName {
			t.Errorf("record %d: severity %v %q, event name %q, body %v", i, lr.SeverityNumber, lr.SeverityText, lr.EventName, lr.Body)
		}
		if len(lr.ProtoReflect().GetUnknown()) > 0 || len(lr.Attributes) != len(records[i].attributes) {
			t.Errorf("record %d: %d attributes, want %d; unknown fields %q", i, len(lr.Attributes), len(records[i].attributes), lr.ProtoReflect().GetUnknown())
		}
	}
	want := []*commonpb.KeyValue{
		{Key: "s", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "text ⟪secret⟫"}}},
		{Key: "empty", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{}}},
		{Key: "n", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 12}}},
		{Key: "zero", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{}}},
		{Key: "neg", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: -3}}},
		{Key: "yes", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}},
		{Key: "no", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{}}},
	}
	for i, kv := range lrs[0].Attributes {
		if !proto.Equal(kv, want[i]) {
			t.Errorf("attribute %d: %v, want %v", i, kv, want[i])
		}
	}
}
