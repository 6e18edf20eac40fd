package otelexport

import (
	"encoding/binary"
	"maps"
	"slices"
	"time"
)

// The OTLP/HTTP request body, written by hand in protobuf's binary
// encoding: the generated OTLP types and the protobuf runtime cost every
// hook process about 5 ms of CPU at start, exporting on or off
// (docs/telemetry.md, "What it costs"). The field numbers are those of
// opentelemetry-proto's collector/logs/v1/logs_service.proto,
// logs/v1/logs.proto, common/v1/common.proto and
// resource/v1/resource.proto; e2e/otelcollector reads what is written
// back with the collector's pdata and its receiver.

// Protobuf's wire types (protobuf.dev, "Encoding").
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
)

// The fields written, by message.
const (
	requestResourceLogs = 1 // ExportLogsServiceRequest.resource_logs

	resourceLogsResource  = 1 // ResourceLogs.resource
	resourceLogsScopeLogs = 2 // ResourceLogs.scope_logs

	resourceAttributes = 1 // Resource.attributes

	scopeLogsScope      = 1 // ScopeLogs.scope
	scopeLogsLogRecords = 2 // ScopeLogs.log_records

	scopeNameField    = 1 // InstrumentationScope.name
	scopeVersionField = 2 // InstrumentationScope.version

	recordTime         = 1  // LogRecord.time_unix_nano, fixed64
	recordSeverity     = 2  // LogRecord.severity_number
	recordSeverityText = 3  // LogRecord.severity_text
	recordBody         = 5  // LogRecord.body
	recordAttributes   = 6  // LogRecord.attributes
	recordObservedTime = 11 // LogRecord.observed_time_unix_nano, fixed64
	recordEventName    = 12 // LogRecord.event_name

	keyValueKey   = 1 // KeyValue.key
	keyValueValue = 2 // KeyValue.value

	anyString = 1 // AnyValue.string_value
	anyBool   = 2 // AnyValue.bool_value
	anyInt    = 3 // AnyValue.int_value

	// severityInfo is SeverityNumber SEVERITY_NUMBER_INFO.
	severityInfo = 9
)

// attribute is one key and its value: a string, an int64 or a bool.
type attribute struct {
	key   string
	value any
}

// logRecord is one receipt as a log record: its event name, body and
// severity are every record's (record.go).
type logRecord struct {
	time, observed time.Time
	attributes     []attribute
}

// scope names the records' instrumentation scope.
type scope struct{ name, version string }

// encodeRequest is one ExportLogsServiceRequest: records under one
// resource and one scope.
func encodeRequest(resource []attribute, sc scope, records []logRecord) []byte {
	var res []byte
	for _, a := range resource {
		res = appendBytes(res, resourceAttributes, appendKeyValue(nil, a))
	}
	s := appendBytes(nil, scopeNameField, sc.name)
	s = appendBytes(s, scopeVersionField, sc.version)
	scopeLogs := appendBytes(nil, scopeLogsScope, s)
	for _, r := range records {
		scopeLogs = appendBytes(scopeLogs, scopeLogsLogRecords, appendRecord(nil, r))
	}
	rl := appendBytes(nil, resourceLogsResource, res)
	rl = appendBytes(rl, resourceLogsScopeLogs, scopeLogs)
	return appendBytes(nil, requestResourceLogs, rl)
}

func appendRecord(b []byte, r logRecord) []byte {
	b = appendFixed64(b, recordTime, uint64(r.time.UnixNano()))
	b = appendVarint(b, recordSeverity, severityInfo)
	b = appendBytes(b, recordSeverityText, "INFO")
	b = appendBytes(b, recordBody, appendAnyValue(nil, EventName))
	for _, a := range r.attributes {
		b = appendBytes(b, recordAttributes, appendKeyValue(nil, a))
	}
	b = appendFixed64(b, recordObservedTime, uint64(r.observed.UnixNano()))
	return appendBytes(b, recordEventName, EventName)
}

func appendKeyValue(b []byte, a attribute) []byte {
	b = appendBytes(b, keyValueKey, a.key)
	return appendBytes(b, keyValueValue, appendAnyValue(nil, a.value))
}

// appendAnyValue writes v's one field even when it is its zero value: a
// oneof's field is present when set (protobuf.dev, "Field Presence").
func appendAnyValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case int64:
		return appendVarint(b, anyInt, uint64(v))
	case bool:
		var n uint64
		if v {
			n = 1
		}
		return appendVarint(b, anyBool, n)
	default:
		return appendBytes(b, anyString, v.(string))
	}
}

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendVarint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

// appendBytes writes a length-delimited field: a string or an embedded
// message, already encoded.
func appendBytes[T string | []byte](b []byte, field int, v T) []byte {
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(v)))
	return append(b, v...)
}

// sortedAttributes are m's entries as string attributes in key order, so
// that a resource is written the same way every time.
func sortedAttributes(m map[string]string) []attribute {
	var attrs []attribute
	for _, k := range slices.Sorted(maps.Keys(m)) {
		attrs = append(attrs, attribute{k, m[k]})
	}
	return attrs
}
