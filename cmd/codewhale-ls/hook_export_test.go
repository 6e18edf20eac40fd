package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookSaysWhatItDidNotExport: with the export on and the collector
// stopped, the answer is the same as with the export off; after an
// answer that exits 0 stderr then says the record was not exported,
// and after Codex's exit-2 deny, whose stderr its model reads as the
// reason, it says nothing more (docs/telemetry.md).
func TestHookSaysWhatItDidNotExport(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := "http://" + l.Addr().String()
	_ = l.Close()
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			w := newHookWorld(t)
			hookScenarios["shell_typed_deny"](t, w)
			event := `{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force"}, "tool_use_id": "toolu_01", "cwd": "` + w.ws + `"}`
			t.Setenv("CODEWHALE_LS_ENABLE_TELEMETRY", "")
			offCode, offOut, offErr := runCLI(t, event, "hook", agent, "--codewhale-version", "0.10.1")
			t.Setenv("CODEWHALE_LS_ENABLE_TELEMETRY", "1")
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", stopped)
			code, out, errOut := runCLI(t, event, "hook", agent, "--codewhale-version", "0.10.1")
			if code != offCode || out != offOut || !strings.Contains(out, "deny") {
				t.Fatalf("with the collector stopped: exit %d, stdout %q; with the export off: exit %d, stdout %q", code, out, offCode, offOut)
			}
			note := "codewhale-ls: 1 of 1 decision record was not exported to the OpenTelemetry collector at " + stopped + "/v1/logs"
			switch {
			case code == 0 && (!strings.HasPrefix(errOut, offErr+note) || !strings.Contains(errOut, "connection refused")):
				t.Errorf("stderr after an exit-0 answer %q, want %q then the note %q", errOut, offErr, note)
			case code == 2 && errOut != offErr:
				t.Errorf("stderr after an exit-2 deny %q, want only the reason %q", errOut, offErr)
			}
			log, err := os.ReadFile(filepath.Join(w.codewhaleHome, "codewhale-ls", "decisions.jsonl"))
			if n := strings.Count(string(log), "\n"); err != nil || n != 2 {
				t.Errorf("%d receipts logged (%v), want both decisions'", n, err)
			}
		})
	}
}

// TestHookEndsWhenTheCollectorNeverAnswers: a collector that takes the
// connection and never answers holds a hook only for
// approvals.SinkFlushTimeout after its answer; the record is then
// counted as not exported.
func TestHookEndsWhenTheCollectorNeverAnswers(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	defer close(release)
	w := newHookWorld(t)
	hookScenarios["shell_typed_deny"](t, w)
	t.Setenv("CODEWHALE_LS_ENABLE_TELEMETRY", "1")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", silent.URL)
	event := `{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force"}, "tool_use_id": "toolu_01", "cwd": "` + w.ws + `"}`
	code, out, errOut := runCLI(t, event, "hook", "claude-code", "--codewhale-version", "0.10.1")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "1 of 1 decision record was not exported") || !strings.Contains(errOut, "the collector did not answer before codewhale-ls stopped waiting") {
		t.Errorf("stderr %q does not say the record was not exported when the wait ended", errOut)
	}
}
