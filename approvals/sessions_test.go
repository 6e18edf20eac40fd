package approvals

import "testing"

// TestSessionsKeys follows docs/codewhale/pipeline.md §8.2: approvals by
// the keys a grant added (which ones is the gate's, per release), denials
// by the exact key.
func TestSessionsKeys(t *testing.T) {
	s := NewSessions()
	if s.Approved("bash") || s.Approved("shell:cargo test") || s.Denied("shell:exec_shell:1") {
		t.Fatal("a new session has answers")
	}
	s.Approve("bash", "shell:cargo test")
	for key, want := range map[string]bool{"bash": true, "shell:cargo test": true, "write": false, "shell:git push": false} {
		if got := s.Approved(key); got != want {
			t.Errorf("Approved(%q) = %v, want %v", key, got, want)
		}
	}
	s.Deny("shell:exec_shell:1")
	if !s.Denied("shell:exec_shell:1") || s.Denied("shell:exec_shell:2") {
		t.Error("denials are not by exact key")
	}
}
