package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/goleak"
)

// hookWorld is a world whose user config runs one lenient
// tool_call_before hook: it writes started, sleeps, then denies.
func hookWorld(t *testing.T, sleep string) (*world, string) {
	t.Helper()
	w := newWorld(t)
	started := filepath.Join(w.tmp, "started")
	hook := "echo $$ > " + started + "; sleep " + sleep + `; echo '{"decision":"deny","reason":"slow gate"}'`
	w.write(t, w.configPath(), w.hermeticKeys()+"[hooks]\n[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = "+
		strconvQuote(hook)+"\ntimeout_secs = 1000\n")
	return w, started
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s) // a TOML basic string accepts JSON's escapes
	return string(b)
}

func waitStarted(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, _ := os.ReadFile(path); strings.HasSuffix(string(b), "\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the hook never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lastDecision waits for a codewhale/decision notification.
func (s *session) lastDecision() decided {
	s.t.Helper()
	var d decided
	if err := json.Unmarshal(s.lastDecisionRaw(), &d); err != nil {
		s.t.Fatal(err)
	}
	return d
}

// lastDecisionRaw waits for a codewhale/decision notification and returns
// its params as sent: the notification may arrive after the answer it
// announces reached its asker.
func (s *session) lastDecisionRaw() json.RawMessage {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		var raw json.RawMessage
		if n := len(s.decisions); n > 0 {
			raw = s.decisions[n-1]
		}
		s.mu.Unlock()
		if raw != nil {
			return raw
		}
		if time.Now().After(deadline) {
			s.t.Fatal("no codewhale/decision")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An agent that cancels its own authorize while a denying hook runs must
// not get allow: before, the cut-short lenient hook had no verdict and a
// read that needs no approval was allowed.
func TestCancelledAuthorizeIsDenied(t *testing.T) {
	w, started := hookWorld(t, "1000")
	s := approvalSession(t, w, nil, choose("once"))
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		var d decided
		result <- protocol.Call(ctx, s.conn, "codewhale/authorize", w.call("read_file", map[string]any{"path": "README.md"}), &d)
	}()
	waitStarted(t, started)
	cancel() // protocol.Call sends $/cancelRequest for the call
	<-result
	d := s.lastDecision()
	if d.Decision != "deny" || !strings.Contains(d.Reason, "cancelled") {
		t.Fatalf("a cancelled call got %s at layer %d: %s", d.Decision, d.Layer, d.Reason)
	}
	s.shutdown()
	log := readDecisionLog(t, filepath.Join(w.tmp, "decisions.jsonl"))
	if len(log) != 1 || log[0]["decision"] != "deny" {
		t.Errorf("decision log %v", log)
	}
}

// shutdown with a hook mid-run ends at once (gate/hooks tests that the
// group is killed) and the pending call is denied; before, shutdown waited for the hook's
// timeout.
func TestShutdownEndsRunningHooks(t *testing.T) {
	w, started := hookWorld(t, "1000")
	s := approvalSession(t, w, nil, choose("once"))
	result := make(chan decided, 1)
	go func() {
		var d decided
		_, _ = s.conn.Call(context.Background(), "codewhale/authorize", w.call("read_file", map[string]any{"path": "README.md"}), &d)
		result <- d
	}()
	waitStarted(t, started)
	s.shutdown()
	if d := <-result; d.Decision != "deny" {
		t.Fatalf("the pending call got %s at layer %d: %s", d.Decision, d.Layer, d.Reason)
	}
}

// A client that reads none of our output and then closes its input: the
// answer waiting to be written kept conn.Close, and the goroutine running
// it, alive after Serve returned. Serve now closes the transport by force
// and returns only when that goroutine has ended.
func TestServeLeavesNothingBehindAClientThatReadsNothing(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // never read
	defer outR.Close()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), inR, outW, Options{}) }()
	frame := `{"jsonrpc":"2.0","id":1,"method":"codewhale/status"}`
	if _, err := fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(frame), frame); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	goleak.VerifyNone(t)
}
