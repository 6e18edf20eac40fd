package rpc

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/benchdata"
	"go.lsp.dev/jsonrpc2"
)

// BenchmarkAuthorizeVsTransport measures codewhale/authorize round trips
// over OS pipes (as stdio) from a client that keeps 8 requests in flight, next to the same
// client's round trips for a trivial request (an unknown method, answered
// by the handler chain alone) on the same connection: the transport's own
// limit. It reports both rates, their ratio (target ≥ 0.5) and the p99
// latencies. The authorized call (bash ls) is allowed by layer 4 and
// logged to the decision log, as every real decision is.
func BenchmarkAuthorizeVsTransport(b *testing.B) {
	w := newWorld(b)
	w.write(b, w.configPath(), w.hermeticKeys())
	s := newOSPipeSession(b, w, Options{})
	s.countOnly = true // a real client acts on the decision; it need not keep them
	// In a directory of its own, as the default log is: not one the
	// watcher watches, so its writes wake nothing.
	s.initializeWith(editor, map[string]any{"decisionLog": filepath.Join(w.tmp, "log", "decisions.jsonl")})
	authorize := w.call("bash", bash("ls"))
	var d decided
	if _, err := s.conn.Call(context.Background(), "codewhale/authorize", authorize, &d); err != nil || d.Decision != "allow" {
		b.Fatalf("setup: %v %+v", err, d)
	}
	pipelined := func(n int, call func() error) (float64, time.Duration) {
		rate, p99, err := benchdata.Pipelined(n, 8, call)
		if err != nil {
			b.Error(err)
		}
		return rate, p99
	}
	b.ResetTimer()
	// The client reads the result raw (its own JSON decoder is not the
	// server's cost) and checks the verdict.
	allowed := []byte(`"decision":"allow"`)
	authRate, authP99 := pipelined(b.N, func() error {
		var raw jsonrpc2.RawMessage
		if _, err := s.conn.Call(context.Background(), "codewhale/authorize", authorize, &raw); err != nil {
			return err
		}
		if !bytes.Contains(raw, allowed) {
			return fmt.Errorf("not allowed: %s", raw)
		}
		return nil
	})
	b.StopTimer()
	trivialRate, trivialP99 := pipelined(b.N, func() error {
		var out jsonrpc2.RawMessage
		_, err := s.conn.Call(context.Background(), "codewhale/noSuchMethod", nil, &out)
		if err != nil && err.Error() != "method not found: codewhale/noSuchMethod" {
			return err
		}
		return nil
	})
	s.mu.Lock()
	notified := s.decided
	s.mu.Unlock()
	if notified < b.N {
		b.Errorf("%d codewhale/decision notifications for %d decisions", notified, b.N)
	}
	b.ReportMetric(authRate, "decisions/s")
	b.ReportMetric(trivialRate, "trivial/s")
	b.ReportMetric(authRate/trivialRate, "ratio")
	b.ReportMetric(float64(authP99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(trivialP99.Microseconds()), "trivial-p99-µs")
	s.shutdown()
}
