package agents

import (
	"reflect"
	"testing"
)

// TestAnchor: relative paths become absolute in the agent's working
// directory; absolute and home paths are kept; a patch changes only in its
// header lines (issue 14 point 1).
func TestAnchor(t *testing.T) {
	cases := []struct {
		name     string
		tool     string
		in, want map[string]any
	}{
		{"file path", "write_file", map[string]any{"path": "key.txt", "content": "x"}, map[string]any{"path": "/r/s/key.txt", "content": "x"}},
		{"file path up", "read_file", map[string]any{"path": "../../h/.ssh/id_rsa"}, map[string]any{"path": "/h/.ssh/id_rsa"}},
		{"absolute kept", "edit_file", map[string]any{"path": "/etc/hosts"}, map[string]any{"path": "/etc/hosts"}},
		{"image read", "read_media", map[string]any{"path": "../../h/.ssh/id_rsa"}, map[string]any{"path": "/h/.ssh/id_rsa"}},
		{"home kept", "read_file", map[string]any{"path": "~/.ssh/id_rsa"}, map[string]any{"path": "~/.ssh/id_rsa"}},
		{"shell gets the cwd", "exec_shell", map[string]any{"command": "ls"}, map[string]any{"command": "ls", "cwd": "/r/s"}},
		{"shell's relative dir", "exec_shell", map[string]any{"command": "cat id_rsa", "cwd": "../../h/.ssh"}, map[string]any{"command": "cat id_rsa", "cwd": "/h/.ssh"}},
		{"listing without a path", "list_dir", map[string]any{}, map[string]any{"path": "/r/s"}},
		{"search in a subdirectory", "grep_files", map[string]any{"pattern": "x", "path": "src"}, map[string]any{"pattern": "x", "path": "/r/s/src"}},
		{"envelope patch", "apply_patch",
			map[string]any{"patch": "*** Begin Patch\r\n*** Add File: key.txt\r\n+--- x\r\n*** Update File: /abs/a\n*** Move to: b\n--- kept\n*** End Patch"},
			map[string]any{"patch": "*** Begin Patch\r\n*** Add File: /r/s/key.txt\r\n+--- x\r\n*** Update File: /abs/a\n*** Move to: /r/s/b\n--- kept\n*** End Patch"}},
		{"unified diff", "apply_patch",
			map[string]any{"input": "--- a/x.go\t2026-01-01\n+++ b/x.go\n@@ -1 +1 @@\n--- not a header\n+y\n--- /dev/null\n+++ b/new\n"},
			map[string]any{"input": "--- /r/s/x.go\t2026-01-01\n+++ /r/s/x.go\n@@ -1 +1 @@\n--- not a header\n+y\n--- /dev/null\n+++ /r/s/new\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			call := Call{Tool: c.tool, Input: c.in, Cwd: "/r/s"}
			call.Anchor()
			if !reflect.DeepEqual(call.Input, c.want) {
				t.Errorf("got %q\nwant %q", call.Input, c.want)
			}
		})
	}
}
