package patchfiles

import (
	"encoding/json"
	"slices"
	"testing"
)

// Target shapes of docs/codewhale/pipeline.md §7.2 and the apply_patch rows of §7.3.
func TestTargets(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"path", `{"path":"src/main.rs","content":"x"}`, []string{"src/main.rs"}},
		{"all direct fields in order", `{"file_path":"d","destination":"c","target":"b","path":"a"}`, []string{"a", "b", "c", "d"}},
		{"raw, not normalised", `{"path":"./x/../CHANGELOG.md"}`, []string{"./x/../CHANGELOG.md"}},
		{"non-string values skipped", `{"path":7,"target":["a"],"file_path":null}`, nil},
		{"empty string skipped", `{"path":""}`, nil},
		{"replace entries", `{"replace":[{"path":"crates/protocol/msg.rs"}]}`, []string{"crates/protocol/msg.rs"}},
		{"legacy changes entries", `{"changes":[{"path":"crates/protocol/msg.rs"}]}`, []string{"crates/protocol/msg.rs"}},
		{"malformed entries skipped", `{"replace":["a",{"path":1},{"file":"b"},{"path":"c"}],"changes":{"path":"d"}}`, []string{"c"}},
		{"unified diff with prefixes", `{"patch":"--- a/crates/protocol/msg.rs\n+++ b/crates/protocol/msg.rs\n@@ -1 +1 @@\n-a\n+b\n"}`, []string{"crates/protocol/msg.rs"}},
		{"envelope", `{"patch":"*** Begin Patch\n*** Update File: crates/protocol/msg.rs\n*** End Patch"}`, []string{"crates/protocol/msg.rs"}},
		{"envelope ops", `{"patch":"*** Begin Patch\n*** Add File: a.rs\n+x\n*** Delete File: b.rs\n*** Update File: c.rs\n*** Move to: d.rs\n*** End Patch"}`, []string{"a.rs", "b.rs", "c.rs"}},
		{"diff without prefix", `{"patch":"--- crates/protocol/wire.rs\n+++ crates/protocol/wire.rs"}`, []string{"crates/protocol/wire.rs"}},
		{"deletion to /dev/null", `{"patch":"--- a/crates/protocol/wire.rs\n+++ /dev/null"}`, []string{"crates/protocol/wire.rs"}},
		{"addition from /dev/null", `{"patch":"--- /dev/null\n+++ b/new.rs"}`, []string{"new.rs"}},
		{"timestamps after a tab", `{"patch":"--- a/x\t2026-01-01\n+++ b/crates/protocol/wire.rs\t2026-01-01 10:00:00"}`, []string{"x", "crates/protocol/wire.rs"}},
		{"only one prefix stripped", `{"patch":"--- a/b/c.rs"}`, []string{"b/c.rs"}},
		{"CRLF lines", `{"patch":"*** Update File: a.rs\r\n--- a/b.rs\r\n"}`, []string{"a.rs", "b.rs"}},
		{"header must start the line", `{"patch":" --- a/x.rs\n +++ b/y.rs\n x*** Update File: z"}`, nil},
		{"input is patch text", `{"input":"*** Update File: a.rs"}`, []string{"a.rs"}},
		{"content is not patch text", `{"path":"notes.md","content":"--- a/secret.rs\n+++ b/secret.rs"}`, []string{"notes.md"}},
		{"dedup across sources", `{"path":"a.rs","replace":[{"path":"a.rs"},{"path":"b.rs"}],"patch":"--- a/b.rs\n+++ b/c.rs"}`, []string{"a.rs", "b.rs", "c.rs"}},
		{"no targets", `{"command":"ls"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var input map[string]any
			if err := json.Unmarshal([]byte(tt.input), &input); err != nil {
				t.Fatal(err)
			}
			if got := Targets(input); !slices.Equal(got, tt.want) {
				t.Errorf("Targets(%s) = %q, want %q", tt.input, got, tt.want)
			}
		})
	}
}

func TestTargetsNilInput(t *testing.T) {
	if got := Targets(nil); got != nil {
		t.Fatalf("Targets(nil) = %q", got)
	}
}

func FuzzTargets(f *testing.F) {
	f.Add("crates/protocol/wire.rs", "--- a/x\t1\n+++ /dev/null\n*** Add File: y")
	f.Add("", "*** Update File: \r\n--- \n+++ b/")
	f.Fuzz(func(t *testing.T, path, patch string) {
		got := Targets(map[string]any{"path": path, "patch": patch, "replace": []any{map[string]any{"path": patch}}})
		seen := map[string]bool{}
		for _, p := range got {
			if p == "" || seen[p] {
				t.Fatalf("Targets returned %q (empty or duplicate) in %q", p, got)
			}
			seen[p] = true
		}
		if path != "" && (len(got) == 0 || got[0] != path) {
			t.Fatalf("path %q is not the first target of %q", path, got)
		}
	})
}
