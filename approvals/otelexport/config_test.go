package otelexport

import (
	"maps"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolveIsOffByDefault(t *testing.T) {
	for _, env := range []map[string]string{
		nil,
		// A team's OTLP settings meant for the agents do not turn ours on.
		{endpointEnv: "http://collector:4318", logsExporterEnv: "otlp", "CLAUDE_CODE_ENABLE_TELEMETRY": "1"},
		{EnableEnv: "0"},
		// none turns it off whatever else says on.
		{EnableEnv: "1", logsExporterEnv: "none"},
	} {
		_, on, err := resolve(approvals.ExportSettings{}, envOf(env))
		if on || err != nil {
			t.Errorf("env %v: on %v, err %v; want off", env, on, err)
		}
	}
	if _, on, _ := resolve(approvals.ExportSettings{Enabled: true}, envOf(map[string]string{logsExporterEnv: "none"})); on {
		t.Error("OTEL_LOGS_EXPORTER=none left exporting on")
	}
}

func TestResolveEndpoints(t *testing.T) {
	cases := []struct {
		name     string
		settings approvals.ExportSettings
		env      map[string]string
		endpoint string
	}{
		{"settings alone take the local collector", approvals.ExportSettings{Enabled: true}, nil, "http://localhost:4318/v1/logs"},
		{"environment alone", approvals.ExportSettings{}, map[string]string{EnableEnv: "true"}, "http://localhost:4318/v1/logs"},
		{"a base endpoint gets /v1/logs", approvals.ExportSettings{}, map[string]string{EnableEnv: "1", endpointEnv: "https://otel.example.com:4318/"}, "https://otel.example.com:4318/v1/logs"},
		{"a logs endpoint is used as given", approvals.ExportSettings{}, map[string]string{EnableEnv: "1", endpointEnv: "http://a:4318", logsEndpointEnv: "http://b:9999/custom"}, "http://b:9999/custom"},
		{"a list of exporters naming otlp", approvals.ExportSettings{}, map[string]string{EnableEnv: "1", logsExporterEnv: "console, otlp"}, "http://localhost:4318/v1/logs"},
		{"the logs protocol wins over the general one", approvals.ExportSettings{}, map[string]string{EnableEnv: "1", protocolEnv: "grpc", logsProtocolEnv: "http/protobuf", endpointEnv: "http://c:4318"}, "http://c:4318/v1/logs"},
		{"http/json goes as http/protobuf", approvals.ExportSettings{}, map[string]string{EnableEnv: "1", protocolEnv: "http/json"}, "http://localhost:4318/v1/logs"},
		{"settings win over the environment", approvals.ExportSettings{Enabled: true, Endpoint: "http://mine:4318", Protocol: "http/protobuf"}, map[string]string{protocolEnv: "grpc", logsEndpointEnv: "http://theirs:4317"}, "http://mine:4318/v1/logs"},
	}
	for _, c := range cases {
		got, on, err := resolve(c.settings, envOf(c.env))
		if err != nil || !on {
			t.Errorf("%s: on %v, err %v", c.name, on, err)
			continue
		}
		if got.endpoint != c.endpoint {
			t.Errorf("%s: endpoint %s, want %s", c.name, got.endpoint, c.endpoint)
		}
	}
}

func TestResolveHeadersAndResource(t *testing.T) {
	env := map[string]string{
		EnableEnv:        "1",
		headersEnv:       "Authorization=Bearer%20general, x-team=a",
		logsHeadersEnv:   "Authorization=Bearer%20logs",
		resourceAttrsEnv: "team=platform,service.name=ignored,deployment.environment=dev%2Fone",
		serviceNameEnv:   "codewhale-ls-team",
	}
	got, on, err := resolve(approvals.ExportSettings{Headers: map[string]string{"x-from": "settings"}}, envOf(env))
	if err != nil || !on {
		t.Fatalf("on %v, err %v", on, err)
	}
	wantHeaders := map[string]string{"Authorization": "Bearer logs", "x-from": "settings"}
	if !maps.Equal(got.headers, wantHeaders) {
		t.Errorf("headers %v, want %v", got.headers, wantHeaders)
	}
	wantResource := map[string]string{"team": "platform", "service.name": "codewhale-ls-team", "deployment.environment": "dev/one"}
	if !maps.Equal(got.resource, wantResource) {
		t.Errorf("resource %v, want %v", got.resource, wantResource)
	}
	got, _, _ = resolve(approvals.ExportSettings{Enabled: true}, envOf(nil))
	if got.resource["service.name"] != "codewhale-ls" {
		t.Errorf("default service.name %q", got.resource["service.name"])
	}
}

func TestResolveRefusesWhatItCannotDo(t *testing.T) {
	const token = "s3cr3t-t0ken"
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{logsExporterEnv: "console"}, "only with otlp"},
		{map[string]string{protocolEnv: "grpc/json"}, `"grpc/json"`},
		// gRPC is not linked in: the error says what to set instead.
		{map[string]string{protocolEnv: "grpc"}, `over OTLP/HTTP only, which every collector takes (port 4318): set protocol = "http/protobuf"`},
		{map[string]string{logsProtocolEnv: "grpc", protocolEnv: "http/protobuf"}, "OTLP/HTTP only"},
		{map[string]string{endpointEnv: "localhost:4318"}, "want a URL"},
		{map[string]string{headersEnv: "Authorization " + token}, "entry 1 is not key=value"},
		{map[string]string{headersEnv: "Authorization=" + token + "%zz"}, "not percent-encoded"},
	}
	for _, c := range cases {
		c.env[EnableEnv] = "1"
		_, on, err := resolve(approvals.ExportSettings{}, envOf(c.env))
		if err == nil || on || !strings.Contains(err.Error(), c.want) {
			t.Errorf("env %v: on %v, err %v; want an error saying %q", c.env, on, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("the error quotes a header's value: %v", err)
		}
	}
}
