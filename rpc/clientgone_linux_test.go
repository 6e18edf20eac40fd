package rpc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/grouptest"
)

// An editor that goes away (its end of stdin closed, no shutdown, no exit)
// with a hook mid-run ends the session at once: the hook's process group
// is killed and the pending call is denied (in the decision log: jsonrpc2
// sends nothing once its input ended). Before, jsonrpc2 waited for the
// handler in flight, and so for the hook to finish.
func TestClientGoneEndsRunningHooks(t *testing.T) {
	w, started := hookWorld(t, "1000")
	s := approvalSession(t, w, nil, choose("once"))
	called := make(chan struct{})
	go func() {
		defer close(called)
		_, _ = s.conn.Call(context.Background(), "codewhale/authorize", w.call("read_file", map[string]any{"path": "README.md"}), nil)
	}()
	waitStarted(t, started)
	s.toSrv.Close()
	select {
	case err := <-s.served:
		s.served <- err // for the session's cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("the server outlived its client")
	}
	pid, _ := os.ReadFile(started) // the hook's shell leads its group
	grouptest.WaitGone(t, string(pid))
	s.conn.Close() // ends the call, which no answer will reach
	<-called
	log := readDecisionLog(t, filepath.Join(w.tmp, "decisions.jsonl"))
	if len(log) != 1 || log[0]["decision"] != "deny" {
		t.Errorf("decision log %v", log)
	}
}
