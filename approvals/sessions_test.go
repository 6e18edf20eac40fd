package approvals

import "testing"

// TestSessionsKeys follows docs/codewhale/pipeline.md §8.2: approvals by tool name or
// grouping key, denials by the exact key.
func TestSessionsKeys(t *testing.T) {
	s := NewSessions()
	if s.Approved("bash", "shell:cargo test") || s.Denied("shell:exec_shell:1") {
		t.Fatal("a new session has answers")
	}
	s.Approve("bash", "shell:cargo test")
	for _, c := range []struct {
		tool, key string
		want      bool
	}{{"bash", "shell:git push", true}, {"write", "shell:cargo test", true}, {"write", "file:x", false}} {
		if got := s.Approved(c.tool, c.key); got != c.want {
			t.Errorf("Approved(%q, %q) = %v, want %v", c.tool, c.key, got, c.want)
		}
	}
	s.Deny("shell:exec_shell:1")
	if !s.Denied("shell:exec_shell:1") || s.Denied("shell:exec_shell:2") {
		t.Error("denials are not by exact key")
	}
}
