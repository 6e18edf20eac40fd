//go:build linux

package otelcollector

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
	"github.com/codewhale-ls/codewhale-ls/internal/childtest"
)

// binary is codewhale-ls built from this repository for the tests.
var binary string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "codewhale-otel-e2e")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binary = filepath.Join(dir, "codewhale-ls")
		// Built in the main module, with its own dependencies: the binary
		// a user runs, not one built with this module's newer ones.
		build := exec.Command("go", "build", "-o", binary, "./cmd/codewhale-ls")
		build.Dir, build.Stdout, build.Stderr = filepath.Join("..", ".."), os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building codewhale-ls:", err)
			return 1
		}
		return childtest.Run(m)
	}())
}

// collector is the OpenTelemetry Collector's OTLP receiver, listening on
// OTLP/HTTP (codewhale-ls exports over nothing else), handing what it
// receives to a consumer that keeps it for the test.
type collector struct {
	httpAddr string
	receiver receiver.Logs
	mu       sync.Mutex
	received []plog.Logs
}

// freeAddr is a local address nothing listens on now.
func freeAddr(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startCollector(tb testing.TB) *collector {
	tb.Helper()
	c := &collector{httpAddr: freeAddr(tb)}
	factory := otlpreceiver.NewFactory()
	cfg := factory.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = c.httpAddr
	keep, err := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		kept := plog.NewLogs()
		ld.CopyTo(kept)
		c.mu.Lock()
		c.received = append(c.received, kept)
		c.mu.Unlock()
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	c.receiver, err = factory.CreateLogs(context.Background(), receivertest.NewNopSettings(factory.Type()), cfg, keep)
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.receiver.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.stop)
	return c
}

// stop shuts the receiver down: its ports then refuse connections, as a
// stopped collector's do.
func (c *collector) stop() { _ = c.receiver.Shutdown(context.Background()) }

// exported is one log record the collector received, flattened.
type exported struct {
	eventName, body string
	attrs           map[string]any
	resource        map[string]any
}

func (c *collector) records() []exported {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []exported
	for _, ld := range c.received {
		for _, rl := range ld.ResourceLogs().All() {
			res := rl.Resource().Attributes().AsRaw()
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					out = append(out, exported{eventName: lr.EventName(), body: lr.Body().AsString(), attrs: lr.Attributes().AsRaw(), resource: res})
				}
			}
		}
	}
	return out
}

// receivedJSON is everything the collector received, as OTLP/JSON.
func (c *collector) receivedJSON(tb testing.TB) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var all []byte
	for _, ld := range c.received {
		data, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

// world is a home, Codewhale home and repository the hooks decide in.
type world struct {
	home, codewhaleHome, repo string
}

func newWorld(tb testing.TB) world {
	root := tb.TempDir()
	w := world{home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo")}
	w.codewhaleHome = filepath.Join(w.home, ".codewhale")
	for _, dir := range []string{w.codewhaleHome, filepath.Join(w.repo, ".git")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	files := map[string]string{
		"config.toml":      "",
		"permissions.toml": "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push --force\"\naction = \"deny\"\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(w.codewhaleHome, name), []byte(content), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

// env is the hook's environment: the world's homes, and exporting set by
// the standard OTLP variables plus ours (none of the runner's OTEL_*).
func (w world) env(otel ...string) []string {
	env := []string{"HOME=" + w.home, "CODEWHALE_HOME=" + w.codewhaleHome, "PATH=" + os.Getenv("PATH")}
	return append(env, otel...)
}

func httpExport(c *collector) []string {
	return []string{"CODEWHALE_LS_ENABLE_TELEMETRY=1", "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + c.httpAddr}
}

// receipts are the v1 lines of the world's decision log.
func (w world) receipts(tb testing.TB) []map[string]any {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(w.codewhaleHome, "codewhale-ls", "decisions.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.Lines(string(data)) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			tb.Fatalf("a decision log line is not JSON: %v: %s", err, line)
		}
		out = append(out, r)
	}
	return out
}

// call is one pre-tool event of an agent's hook.
type call struct {
	agent, tool, command, callID string
}

func (c call) event(repo string) string {
	event, _ := json.Marshal(map[string]any{
		"session_id": "sess-otel", "hook_event_name": "PreToolUse", "tool_name": c.tool,
		"tool_input": map[string]any{"command": c.command}, "tool_use_id": c.callID,
		"permission_mode": "default", "cwd": repo,
	})
	return string(event)
}

// answer is what a hook gave its agent.
type answer struct {
	exit           int
	stdout, stderr string
}

func runHook(tb testing.TB, w world, env []string, c call) answer {
	tb.Helper()
	cmd := exec.Command(binary, "hook", c.agent, "--codewhale-version", "0.10.1")
	cmd.Dir, cmd.Env, cmd.Stdin = w.repo, env, strings.NewReader(c.event(w.repo))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	exit := cmd.ProcessState.ExitCode()
	if err != nil && exit < 0 {
		tb.Fatalf("%s hook did not run: %v", c.agent, err)
	}
	return answer{exit, out.String(), errOut.String()}
}

// secretCalls are commands carrying each secret of gate/secrets' corpus,
// from both agents, with the secrets they carry.
func secretCalls() (calls []call, secrets []string) {
	agents := []string{"claude-code", "codex"}
	for i, tok := range secretstest.Tokens(26) {
		calls = append(calls, call{agents[i%2], "Bash", "deploy --flag " + tok.Text + " && echo done", fmt.Sprintf("call_secret%d", i)})
		secrets = append(secrets, tok.Secret)
	}
	return calls, secrets
}

// decidingCalls deny by a rule, allow, and ask, from both agents.
var decidingCalls = []call{
	{"claude-code", "Bash", "git push --force origin main", "toolu_deny"},
	{"codex", "Bash", "git push --force", "call_deny"},
	{"claude-code", "Bash", "ls", "toolu_allow"},
	{"codex", "Bash", "ls", "call_allow"},
	{"claude-code", "Bash", "npm install left-pad", "toolu_ask"},
}

// TestCollectorReceivesOneRecordPerDecision: every decision the hooks of
// both agents make, over OTLP/HTTP, reaches the collector as one record
// carrying its receipt's id, decision, masked input and decider, and no
// secret a command carried reaches it at all.
func TestCollectorReceivesOneRecordPerDecision(t *testing.T) {
	c := startCollector(t)
	w := newWorld(t)
	secrets, secretValues := secretCalls()
	calls := append(append([]call{}, decidingCalls...), secrets...)
	for _, call := range calls {
		if a := runHook(t, w, w.env(httpExport(c)...), call); a.exit != 0 && a.exit != 2 {
			t.Fatalf("%s %q: exit %d, stderr %s", call.agent, call.command, a.exit, a.stderr)
		}
	}
	receipts, records := w.receipts(t), c.records()
	if len(receipts) != len(calls) || len(records) != len(calls) {
		t.Fatalf("%d calls, %d receipts in the decision log, %d records received; want one each", len(calls), len(receipts), len(records))
	}
	byID := map[string]exported{}
	for _, r := range records {
		id, _ := r.attrs["receipt.id"].(string)
		if _, twice := byID[id]; twice || id == "" {
			t.Fatalf("receipt id %q received twice or empty: %v", id, r.attrs)
		}
		byID[id] = r
		if r.eventName != "codewhale_ls.tool_decision" || r.body != "codewhale_ls.tool_decision" || r.attrs["event.name"] != "codewhale_ls.tool_decision" {
			t.Errorf("record %s: event name %q, body %q", id, r.eventName, r.body)
		}
		if r.resource["service.name"] != "codewhale-ls" {
			t.Errorf("record %s: resource %v", id, r.resource)
		}
	}
	for i, receipt := range receipts {
		id, _ := receipt["id"].(string)
		r, ok := byID[id]
		if !ok {
			t.Errorf("receipt %s (%s %q) was not received", id, calls[i].agent, calls[i].command)
			continue
		}
		want := map[string]any{
			"tool_name": receipt["tool"], "decision": receipt["decision"], "agent": calls[i].agent,
			"session.id": "sess-otel", "call_id": calls[i].callID, "repo": w.repo,
		}
		if input, _ := receipt["input"].([]any); len(input) > 0 {
			first, _ := input[0].(map[string]any)
			want["input."+fmt.Sprint(first["field"])] = first["text"]
		} else {
			t.Errorf("receipt %s has no input: %v", id, receipt)
		}
		for k, v := range want {
			if r.attrs[k] != v {
				t.Errorf("record %s (%s %q): %s = %v, want %v", id, calls[i].agent, calls[i].command, k, r.attrs[k], v)
			}
		}
	}
	// The rule's denials name it: file and line.
	for _, r := range records {
		if r.attrs["call_id"] == "toolu_deny" {
			if r.attrs["decision"] != "deny" || r.attrs["decider.kind"] != "rule" || r.attrs["source"] != "config" ||
				r.attrs["decider.file"] != filepath.Join(w.codewhaleHome, "permissions.toml") || r.attrs["decider.line"] != int64(1) {
				t.Errorf("the rule's deny: %v", r.attrs)
			}
		}
	}
	wire := c.receivedJSON(t)
	for _, secret := range secretValues {
		if bytes.Contains(wire, []byte(secret)) {
			t.Errorf("a secret reached the collector: %s…", secret[:4])
		}
	}
	if !bytes.Contains(wire, []byte("⟪secret: github token⟫")) {
		t.Error("the masked GitHub token's placeholder is not in what was received")
	}
}

// TestCollectorWithTheJSONProtocol: OTEL_EXPORTER_OTLP_PROTOCOL=http/json,
// which a team may have set for its agents, exports to the same OTLP/HTTP
// path (in protobuf, which the receiver takes there too).
func TestCollectorWithTheJSONProtocol(t *testing.T) {
	c := startCollector(t)
	w := newWorld(t)
	runHook(t, w, w.env(append(httpExport(c), "OTEL_EXPORTER_OTLP_PROTOCOL=http/json")...), decidingCalls[0])
	records := c.records()
	if len(records) != 1 || records[0].attrs["decision"] != "deny" {
		t.Fatalf("with http/json: %d records %v; want the deny", len(records), records)
	}
}

// TestGRPCIsRefused: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is a setting
// codewhale-ls cannot follow (it exports over OTLP/HTTP only): a call
// that would be allowed is refused, and the answer says what to set.
func TestGRPCIsRefused(t *testing.T) {
	w := newWorld(t)
	env := w.env("CODEWHALE_LS_ENABLE_TELEMETRY=1", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317")
	allowed := decidingCalls[2]
	if off := runHook(t, w, w.env(), allowed); off.exit != 0 || strings.Contains(off.stdout, "deny") {
		t.Fatalf("%q with exporting off: %+v; want it allowed", allowed.command, off)
	}
	got := runHook(t, w, env, allowed)
	if !strings.Contains(got.stdout+got.stderr, "deny") || !strings.Contains(got.stdout+got.stderr, "OTLP/HTTP only") {
		t.Errorf("%q with grpc: %+v; want a deny saying to export over OTLP/HTTP", allowed.command, got)
	}
}

// TestCollectorFromSettings: settings.toml's [export] alone, without any
// variable, turns the export on and names the collector.
func TestCollectorFromSettings(t *testing.T) {
	c := startCollector(t)
	w := newWorld(t)
	settings := "[export]\notlp = true\nendpoint = \"http://" + c.httpAddr + "\"\nheaders = { x-team = \"platform\" }\n"
	if err := os.MkdirAll(filepath.Join(w.codewhaleHome, "codewhale-ls"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.codewhaleHome, "codewhale-ls", "settings.toml"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	runHook(t, w, w.env(), decidingCalls[1])
	records := c.records()
	if len(records) != 1 || records[0].attrs["agent"] != "codex" || records[0].attrs["decision"] != "deny" {
		t.Fatalf("from settings.toml: %d records %v; want codex's deny", len(records), records)
	}
}

// TestStoppedCollectorChangesNoAnswer: with the collector stopped
// (connection refused), every hook gives its agent exactly the answer it
// gives with exporting off, and the decision log keeps every receipt.
// What it costs in time is BenchmarkHookDecision's.
func TestStoppedCollectorChangesNoAnswer(t *testing.T) {
	c := startCollector(t)
	c.stop()
	off, stopped := newWorld(t), newWorld(t)
	for _, call := range decidingCalls {
		want := runHook(t, off, off.env(), call)
		got := runHook(t, stopped, stopped.env(httpExport(c)...), call)
		// The answers name their world's home.
		got.stdout = strings.ReplaceAll(got.stdout, stopped.home, off.home)
		got.stderr = strings.ReplaceAll(got.stderr, stopped.home, off.home)
		// After an answer that exits 0, stderr also says what was not
		// exported (agents keep it in their logs); after exit 2 it is the
		// reason the model reads, and says nothing more.
		if note := "decision record was not exported to the OpenTelemetry collector at http://" + c.httpAddr; got.exit == 0 {
			before, after, found := strings.Cut(got.stderr, "codewhale-ls: 1 of 1 "+note)
			if !found || !strings.Contains(after, "connection refused") {
				t.Errorf("%s %q: stderr does not say the record was not exported: %q", call.agent, call.command, got.stderr)
			}
			got.stderr = before
		}
		if got != want {
			t.Errorf("%s %q: with the collector stopped %+v; with exporting off %+v", call.agent, call.command, got, want)
		}
	}
	if n := len(stopped.receipts(t)); n != len(decidingCalls) {
		t.Errorf("%d receipts logged with the collector stopped, want %d", n, len(decidingCalls))
	}
}

// TestNothingOfTheExportRunsAtStart: a process starts without running any
// code of the export, nor of the OpenTelemetry SDK, gRPC or protobuf it
// once linked, whose initialisation every hook process paid with
// exporting off (docs/telemetry.md, "What it costs"). The runtime's
// inittrace lists each package whose initialisation does any work.
func TestNothingOfTheExportRunsAtStart(t *testing.T) {
	cmd := exec.Command(binary, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("version: %v: %s", err, trace.String())
	}
	inits := 0
	for line := range strings.Lines(trace.String()) {
		pkg, ok := strings.CutPrefix(line, "init ")
		if !ok {
			continue
		}
		inits++
		for _, banned := range []string{"github.com/codewhale-ls/codewhale-ls/approvals/otelexport ", "go.opentelemetry.io/", "google.golang.org/"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("initialised at start: %s", strings.TrimSpace(line))
			}
		}
	}
	if inits == 0 {
		t.Fatalf("no inittrace in the program's stderr: %q", trace.String())
	}
}

// TestAnswerIsWrittenBeforeTheExportIsWaitedFor: the collector's answer
// to the export is held until the test has read the hook's whole answer
// to its agent; the record still arrives, so the hook wrote its answer
// first and only then waited for the export.
func TestAnswerIsWrittenBeforeTheExportIsWaitedFor(t *testing.T) {
	c := startCollector(t)
	w := newWorld(t)
	answered := make(chan struct{})
	target, err := url.Parse("http://" + c.httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	held := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-answered:
			proxy.ServeHTTP(rw, r)
		case <-r.Context().Done():
		}
	}))
	defer held.Close()
	cmd := exec.Command(binary, "hook", "claude-code", "--codewhale-version", "0.10.1")
	cmd.Dir, cmd.Stdin = w.repo, strings.NewReader(decidingCalls[0].event(w.repo))
	cmd.Env = w.env("CODEWHALE_LS_ENABLE_TELEMETRY=1", "OTEL_EXPORTER_OTLP_ENDPOINT="+held.URL)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var reply map[string]any
	readErr := json.NewDecoder(bufio.NewReader(stdout)).Decode(&reply)
	close(answered)
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hook: %v", err)
	}
	if readErr != nil {
		t.Fatalf("reading the hook's answer: %v", readErr)
	}
	if records := c.records(); len(records) != 1 {
		t.Fatalf("%d records received, want 1: the hook waited for the export before answering", len(records))
	}
}

// BenchmarkHookDecision is one `codewhale-ls hook claude-code` process
// deciding a rule's deny: with exporting off, with a collector up, and
// with it stopped (connection refused). Besides the wall time, which a
// busy machine makes noisy, it reports the process's CPU time
// (cpu-ms/op). docs/telemetry.md quotes it.
func BenchmarkHookDecision(b *testing.B) {
	up := startCollector(b)
	stopped := startCollector(b)
	stopped.stop()
	w := newWorld(b)
	for _, m := range []struct {
		name string
		env  []string
	}{
		{"export-off", w.env()},
		{"collector-up", w.env(httpExport(up)...)},
		{"collector-stopped", w.env(httpExport(stopped)...)},
	} {
		b.Run(m.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(binary, "hook", "claude-code", "--codewhale-version", "0.10.1")
				cmd.Dir, cmd.Env, cmd.Stdin = w.repo, m.env, strings.NewReader(decidingCalls[0].event(w.repo))
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("hook: %v: %s", err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
