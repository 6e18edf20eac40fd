// Package otelcollector tests codewhale-ls's OpenTelemetry export
// (approvals/otelexport, docs/telemetry.md) against a real OpenTelemetry
// Collector receiver, built from the collector's own Go modules. It is a
// module of its own so that the main module's `go test ./...` stays fast
// and free of the collector's dependencies; .ci/run runs it.
package otelcollector
