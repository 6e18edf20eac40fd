package rpc

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorSaysWhatItDidNotExport: settings.toml's [export] reaches the
// editor's recorder, and what the stopped collector did not take is said
// in the server's log when the server stops (docs/telemetry.md).
func TestEditorSaysWhatItDidNotExport(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := "http://" + l.Addr().String()
	_ = l.Close()
	w := newWorld(t)
	w.write(t, filepath.Join(w.home, ".codewhale", "codewhale-ls", "settings.toml"), "[export]\notlp = true\nendpoint = \""+stopped+"\"\n")
	s := approvalSession(t, w, nil, choose("once"))
	expect(t, s.authorize(w.call("bash", bash("cargo test"))), "allow", 8, "once/prompt")
	s.shutdown()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range s.log {
		if strings.Contains(line, "decision records were not exported") && strings.Contains(line, "1 of 1 decision record was not exported to the OpenTelemetry collector at "+stopped) {
			return
		}
	}
	t.Errorf("the server's log does not say the record was not exported:\n%s", strings.Join(s.log, "\n"))
}
