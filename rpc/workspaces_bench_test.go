package rpc

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
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
