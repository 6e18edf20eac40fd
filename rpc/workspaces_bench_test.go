package rpc

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// BenchmarkAfterRefusedWorkspaces measures an allowed codewhale/authorize
// in the editor's folder after an agent named 0 or 4,000 distinct other
// workspaces: each is refused before anything is loaded or kept for it,
// so the cost per call stays flat.
func BenchmarkAfterRefusedWorkspaces(b *testing.B) {
	for _, refused := range []int{0, 4000} {
		b.Run(fmt.Sprintf("refused=%d", refused), func(b *testing.B) {
			w := newWorld(b)
			w.write(b, w.configPath(), w.hermeticKeys())
			s := newOSPipeSession(b, w, Options{})
			s.countOnly = true
			s.initializeWith(editor, map[string]any{"decisionLog": false})
			for i := range refused {
				req := w.call("bash", bash("ls"))
				req["workspace"] = filepath.Join(w.ws, fmt.Sprint("sub", i))
				if d := s.authorize(req); d.Layer != 1 {
					b.Fatalf("workspace %s: %s at layer %d", req["workspace"], d.Decision, d.Layer)
				}
			}
			allowed := w.call("bash", bash("ls"))
			b.ResetTimer()
			for range b.N {
				var d decided
				if _, err := s.conn.Call(context.Background(), "codewhale/authorize", allowed, &d); err != nil || d.Decision != "allow" {
					b.Fatalf("%v %+v", err, d)
				}
			}
			b.StopTimer()
			s.shutdown()
		})
	}
}

// The snapshots kept are bounded: beyond maxPolicies the least recently
// used is dropped, never the one just used.
func TestPoliciesAreBounded(t *testing.T) {
	s := newServer(Options{})
	for i := range maxPolicies + 40 {
		ws := fmt.Sprint("/ws", i)
		s.keepPolicy(ws, &policy{opts: config.Options{Workspace: ws}})
		s.usePolicy(s.policies["/ws0"]) // stays in use
	}
	if len(s.policies) != maxPolicies {
		t.Errorf("%d snapshots kept, want %d", len(s.policies), maxPolicies)
	}
	for _, ws := range []string{"/ws0", fmt.Sprint("/ws", maxPolicies+39)} {
		if s.policies[ws] == nil {
			t.Errorf("%s was dropped", ws)
		}
	}
	if s.policies["/ws1"] != nil {
		t.Errorf("/ws1, the least recently used, is kept")
	}
}
