package otelexport

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// The environment variables that turn exporting on and say where to. Only
// EnableEnv is ours; the rest are the OpenTelemetry SDKs' standard ones
// (the OTLP exporter specification's "Configuration options"), which
// Claude Code also reads and passes on to the hooks it runs
// (docs/telemetry.md).
const (
	// EnableEnv = 1 (or true) turns exporting on, as Claude Code's
	// CLAUDE_CODE_ENABLE_TELEMETRY does for its own events.
	EnableEnv = "CODEWHALE_LS_ENABLE_TELEMETRY"
	// logsExporterEnv = none turns exporting off whatever else says on;
	// any other value but otlp is refused, not silently ignored.
	logsExporterEnv = "OTEL_LOGS_EXPORTER"

	endpointEnv        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	logsEndpointEnv    = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
	protocolEnv        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	logsProtocolEnv    = "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL"
	headersEnv         = "OTEL_EXPORTER_OTLP_HEADERS"
	logsHeadersEnv     = "OTEL_EXPORTER_OTLP_LOGS_HEADERS"
	resourceAttrsEnv   = "OTEL_RESOURCE_ATTRIBUTES"
	serviceNameEnv     = "OTEL_SERVICE_NAME"
	defaultServiceName = "codewhale-ls"
	protocolHTTP       = "http/protobuf"
	// protocolHTTPJSON is sent as http/protobuf: an OTLP/HTTP receiver
	// takes either encoding on the same path (the OTLP specification,
	// "OTLP/HTTP"), and one encoder is enough.
	protocolHTTPJSON = "http/json"
	// protocolGRPC is refused: a gRPC client would cost every process
	// its start-up, exporting or not (docs/telemetry.md).
	protocolGRPC        = "grpc"
	defaultHTTPEndpoint = "http://localhost:4318"
	// logsPath is where an OTLP/HTTP collector takes logs under a base
	// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); a logs endpoint is used as
	// given.
	logsPath = "/v1/logs"
)

// config is where and how receipts are exported, resolved from the
// settings and the environment.
type config struct {
	// endpoint is the OTLP/HTTP logs URL the records go to.
	endpoint string
	headers  map[string]string
	// resource holds OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, the
	// latter winning for service.name.
	resource map[string]string
}

// resolve reads the settings and the environment: on is false when
// exporting is off (the default). A setting given in settings.toml wins
// over the environment's; the environment fills in what it leaves out,
// the logs-only variables before the general ones.
func resolve(s approvals.ExportSettings, getenv func(string) string) (c config, on bool, err error) {
	if !s.Enabled && !truthy(getenv(EnableEnv)) {
		return config{}, false, nil
	}
	// OTEL_LOGS_EXPORTER is a list (Claude Code takes "console,otlp"):
	// none alone turns exporting off; otherwise it must name otlp.
	exporters := map[string]bool{}
	for name := range strings.SplitSeq(getenv(logsExporterEnv), ",") {
		if name = strings.TrimSpace(name); name != "" {
			exporters[name] = true
		}
	}
	switch {
	case len(exporters) == 0 || exporters["otlp"]:
	case exporters["none"] && len(exporters) == 1:
		return config{}, false, nil
	default:
		return config{}, false, fmt.Errorf("%s=%s: codewhale-ls exports decisions only with otlp (or none for no export)", logsExporterEnv, getenv(logsExporterEnv))
	}
	switch protocol := first(s.Protocol, getenv(logsProtocolEnv), getenv(protocolEnv), protocolHTTP); protocol {
	case protocolHTTP, protocolHTTPJSON:
	case protocolGRPC:
		return config{}, false, fmt.Errorf("OTLP protocol grpc: codewhale-ls exports over OTLP/HTTP only, which every collector takes (port 4318): set protocol = %q and the collector's OTLP/HTTP endpoint in settings.toml's [export], or OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=%s and OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", protocolHTTP, protocolHTTP)
	default:
		return config{}, false, fmt.Errorf("OTLP protocol %q: codewhale-ls exports with %s (or %s, sent as %s)", protocol, protocolHTTP, protocolHTTPJSON, protocolHTTP)
	}
	if c.endpoint, err = endpoint(s.Endpoint, getenv); err != nil {
		return config{}, false, err
	}
	headers := first(getenv(logsHeadersEnv), getenv(headersEnv))
	if c.headers, err = parseList(headers); err != nil {
		return config{}, false, fmt.Errorf("%s: %w", headersEnv, err)
	}
	for k, v := range s.Headers {
		c.headers[k] = v
	}
	if c.resource, err = parseList(getenv(resourceAttrsEnv)); err != nil {
		return config{}, false, fmt.Errorf("%s: %w", resourceAttrsEnv, err)
	}
	c.resource["service.name"] = first(getenv(serviceNameEnv), c.resource["service.name"], defaultServiceName)
	return c, true, nil
}

// endpoint is the URL records go to: the settings' endpoint or
// OTEL_EXPORTER_OTLP_ENDPOINT as a base (/v1/logs is added), else
// OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as given, else the collector's default
// port on this machine.
func endpoint(setting string, getenv func(string) string) (string, error) {
	raw, base := setting, true
	if raw == "" {
		if logs := getenv(logsEndpointEnv); logs != "" {
			raw, base = logs, false
		} else {
			raw = getenv(endpointEnv)
		}
	}
	if raw == "" {
		return defaultHTTPEndpoint + logsPath, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("OTLP endpoint %q: want a URL such as %s", raw, defaultHTTPEndpoint)
	}
	if base {
		u.Path = strings.TrimSuffix(u.Path, "/") + logsPath
	}
	return u.String(), nil
}

// redacted is endpoint as reports may show it: a password in its URL
// replaced by xxxxx.
func redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "the configured endpoint"
	}
	return u.Redacted()
}

// parseList reads the W3C-baggage-like list of OTEL_EXPORTER_OTLP_HEADERS
// and OTEL_RESOURCE_ATTRIBUTES: key=value pairs separated by commas,
// values percent-encoded.
func parseList(s string) (map[string]string, error) {
	out := map[string]string{}
	for i, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		// Errors name the entry, never its text: a header's value is
		// often a token.
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("entry %d is not key=value", i+1)
		}
		value, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %s (entry %d) is not percent-encoded", k, i+1)
		}
		out[k] = value
	}
	return out, nil
}

// truthy: 1 or true turn a switch on, as Claude Code reads its own.
func truthy(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "1" || s == "true"
}

// first is the first of values that is not empty.
func first(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
