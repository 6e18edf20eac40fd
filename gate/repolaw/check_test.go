package repolaw

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// lawJSON is the LAW of docs/codewhale/pipeline.md §7.3: an advisory string, a block rule
// and a default-ask rule.
const lawJSON = `{
  "schema_version": 1,
  "protected_invariants": [
    "Keep the public API documented",
    {"text": "The wire format is frozen", "paths": ["crates/protocol/**"], "action": "block"},
    {"text": "Release notes need human review", "paths": ["CHANGELOG.md"]}
  ]
}`

const testWorkspace = "/home/dev/repo"

func mustParse(t *testing.T, text string) Law {
	t.Helper()
	law, _ := Parse([]byte(text))
	return law
}

// TestVectors is the vector table of docs/codewhale/pipeline.md §7.3. Decisions are the
// plan effect in posture Ask without auto-approval.
func TestVectors(t *testing.T) {
	const frozen = "The wire format is frozen"
	const review = "Release notes need human review"
	tests := []struct {
		name         string
		constitution string // "" = no file
		tool         string
		input        map[string]any
		want         OutcomeKind
		invariant    string
		target       string
	}{
		{"only string invariants", `{"protected_invariants":["The wire format is frozen","Be careful"]}`,
			"write_file", map[string]any{"path": "src/main.rs"}, Proceed, "", ""},
		{"only string invariants, protected-looking path", `{"protected_invariants":["The wire format is frozen"]}`,
			"write_file", map[string]any{"path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"block rule", lawJSON, "write_file", map[string]any{"path": "crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"ask rule", lawJSON, "edit_file", map[string]any{"path": "CHANGELOG.md"}, ForcePrompt, review, "CHANGELOG.md"},
		{"File write", lawJSON, "File", map[string]any{"action": "write", "path": "crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"File edit", lawJSON, "File", map[string]any{"action": "edit", "path": "CHANGELOG.md"}, ForcePrompt, review, "CHANGELOG.md"},
		{"write primitive", lawJSON, "write", map[string]any{"path": "crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"edit primitive", lawJSON, "edit", map[string]any{"path": "CHANGELOG.md"}, ForcePrompt, review, "CHANGELOG.md"},
		{"unprotected write", lawJSON, "write_file", map[string]any{"path": "src/main.rs"}, Proceed, "", ""},
		{"read is not a write", lawJSON, "read_file", map[string]any{"path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"File read is not a write", lawJSON, "File", map[string]any{"action": "read", "path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"shell writes are not covered", lawJSON, "bash", map[string]any{"command": "echo x > crates/protocol/wire.rs", "path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"apply_patch replace", lawJSON, "apply_patch", map[string]any{"replace": []any{map[string]any{"path": "crates/protocol/msg.rs"}}}, Blocked, frozen, "crates/protocol/msg.rs"},
		{"apply_patch changes", lawJSON, "apply_patch", map[string]any{"changes": []any{map[string]any{"path": "crates/protocol/msg.rs"}}}, Blocked, frozen, "crates/protocol/msg.rs"},
		{"apply_patch unified diff", lawJSON, "apply_patch", map[string]any{"patch": "--- a/crates/protocol/msg.rs\n+++ b/crates/protocol/msg.rs\n@@ -1 +1 @@\n-a\n+b\n"}, Blocked, frozen, "crates/protocol/msg.rs"},
		{"apply_patch envelope", lawJSON, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: crates/protocol/msg.rs\n*** End Patch"}, Blocked, frozen, "crates/protocol/msg.rs"},
		{"File patch", lawJSON, "File", map[string]any{"action": "patch", "patch": "*** Begin Patch\n*** Add File: crates/protocol/new.rs\n+x\n*** End Patch"}, Blocked, frozen, "crates/protocol/new.rs"},
		{"ask docs/** then block docs/frozen/**",
			`{"protected_invariants":[{"text":"Docs need review","paths":["docs/**"]},{"text":"Frozen docs","paths":["docs/frozen/**"],"action":"block"}]}`,
			"write_file", map[string]any{"path": "docs/frozen/spec.md"}, Blocked, "Frozen docs", "docs/frozen/spec.md"},
		{"block first, later ask does not replace it",
			`{"protected_invariants":[{"text":"Frozen docs","paths":["docs/frozen/**"],"action":"block"},{"text":"Docs need review","paths":["docs/**"]}]}`,
			"write_file", map[string]any{"path": "docs/frozen/spec.md"}, Blocked, "Frozen docs", "docs/frozen/spec.md"},
		{"first ask match wins over a later ask",
			`{"protected_invariants":[{"text":"First","paths":["docs/**"]},{"text":"Second","paths":["*.md"]}]}`,
			"write_file", map[string]any{"path": "docs/a.md"}, ForcePrompt, "First", "docs/a.md"},
		{"a block on a later target replaces an ask", lawJSON, "apply_patch",
			map[string]any{"patch": "*** Update File: CHANGELOG.md\n*** Update File: crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"absolute path inside the workspace", lawJSON, "write_file", map[string]any{"path": testWorkspace + "/crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"dot-slash path", lawJSON, "write_file", map[string]any{"path": "./CHANGELOG.md"}, ForcePrompt, review, "CHANGELOG.md"},
		{"not JSON", `{ not json`, "write_file", map[string]any{"path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"broken glob as top-level keys", `{"paths":["crates/[invalid"],"text":"broken glob"}`,
			"write_file", map[string]any{"path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"broken glob in an invariant", `{"protected_invariants":[{"paths":["crates/[invalid"],"text":"broken glob"}]}`,
			"write_file", map[string]any{"path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"inner dot", lawJSON, "write_file", map[string]any{"path": "crates/./protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"dot-dot back in", lawJSON, "write_file", map[string]any{"path": "crates/../crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"dot-dot from a sibling", lawJSON, "write_file", map[string]any{"path": "x/../crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"leading dot", lawJSON, "write_file", map[string]any{"path": "./crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"fim_edit", lawJSON, "fim_edit", map[string]any{"path": "crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"diff without prefix", lawJSON, "apply_patch", map[string]any{"patch": "--- crates/protocol/wire.rs\n+++ crates/protocol/wire.rs"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"diff deletion", lawJSON, "apply_patch", map[string]any{"patch": "--- a/crates/protocol/wire.rs\n+++ /dev/null"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"diff with timestamps", lawJSON, "apply_patch", map[string]any{"patch": "--- a/x\t2026-01-01\n+++ b/crates/protocol/wire.rs\t2026-01-01 10:00:00"}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"no file", "", "write_file", map[string]any{"path": "crates/protocol/wire.rs"}, Proceed, "", ""},
		{"no file, patch", "", "apply_patch", map[string]any{"patch": "*** Update File: CHANGELOG.md"}, Proceed, "", ""},
		// Our edge cases.
		{"backslashes", lawJSON, "write_file", map[string]any{"path": `crates\protocol\wire.rs`}, Blocked, frozen, "crates/protocol/wire.rs"},
		{"absolute outside the workspace keeps its tail", `{"protected_invariants":[{"text":"System files","paths":["etc/**"],"action":"block"}]}`,
			"write_file", map[string]any{"path": "/etc/passwd"}, Blocked, "System files", "etc/passwd"},
		{"escaping the workspace is kept as ..", `{"protected_invariants":[{"text":"Outside","paths":["../**"]}]}`,
			"write_file", map[string]any{"path": "../other/x"}, ForcePrompt, "Outside", "../other/x"},
		{"case-sensitive", lawJSON, "write_file", map[string]any{"path": "changelog.md"}, Proceed, "", ""},
		{"*.md crosses directories", `{"protected_invariants":[{"text":"Docs","paths":["*.md"]}]}`,
			"write_file", map[string]any{"path": "docs/a.md"}, ForcePrompt, "Docs", "docs/a.md"},
		{"a glob with a leading slash never matches", `{"protected_invariants":[{"text":"Root","paths":["/CHANGELOG.md"]}]}`,
			"write_file", map[string]any{"path": "/home/dev/repo/CHANGELOG.md"}, Proceed, "", ""},
		{"the workspace itself is no target", `{"protected_invariants":[{"text":"All","paths":["**"],"action":"block"}]}`,
			"write_file", map[string]any{"path": testWorkspace}, Proceed, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var law Law
			if tt.constitution != "" {
				law = mustParse(t, tt.constitution)
			}
			hold := law.Check(testWorkspace, tool.Semantic(tt.tool, tt.input), tt.input)
			got := Effect(hold, session.Ask, false, tt.tool)
			if got.Kind != tt.want {
				t.Fatalf("effect = %v (%q), want %v; hold %+v", got.Kind, got.Reason, tt.want, hold)
			}
			if hold.Invariant != tt.invariant || hold.Target != tt.target {
				t.Errorf("hold = %+v, want invariant %q target %q", hold, tt.invariant, tt.target)
			}
			if tt.want != Proceed {
				for _, part := range []string{`"` + tt.invariant + `"`, tt.target, ".codewhale/constitution.json"} {
					if !strings.Contains(got.Reason, part) {
						t.Errorf("reason %q lacks %q", got.Reason, part)
					}
				}
			}
		})
	}
}

func TestReasonText(t *testing.T) {
	law := mustParse(t, `{"protected_invariants":[{"text":"  Two \"globs\"  ","paths":[" a/** ","","b/*"],"action":"block"}]}`)
	hold := law.Check(testWorkspace, "write_file", map[string]any{"path": "b/x"})
	want := `Repo law holds this write: "Two "globs"" protects a/**, b/* (matched b/x, .codewhale/constitution.json)`
	if hold.Action != Block || hold.Reason != want || hold.Invariant != `Two "globs"` {
		t.Fatalf("hold = %+v\nwant reason %s", hold, want)
	}
}

func TestNormalizeTarget(t *testing.T) {
	tests := []struct{ workspace, raw, want string }{
		{"/ws", "a/b", "a/b"},
		{"/ws", "/ws/a/b", "a/b"},
		{"/ws/", "/ws//a/./b", "a/b"},
		{"/ws", "/wsx/a", "wsx/a"},
		{"/ws", "/ws", ""},
		{"/ws", "/ws/../x", "../x"}, // the prefix goes first, then `..` has nothing to pop
		{"/ws", "/other/x", "other/x"},
		{"/ws", "a/../../b", "../b"},
		{"/ws", "../../x", "x"},
		{"/ws", `C:\ws\a`, "C:/ws/a"},
		{"/ws", `\ws\a`, "a"},
		{"ws", "/ws/a", "ws/a"},
		{"/ws", "a//b/", "a/b"},
		{"/ws", ".", ""},
	}
	for _, tt := range tests {
		if got := normalizeTarget(tt.workspace, tt.raw); got != tt.want {
			t.Errorf("normalizeTarget(%q, %q) = %q, want %q", tt.workspace, tt.raw, got, tt.want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	law, _ := Parse([]byte(lawJSON))
	f.Add(testWorkspace, "crates/../crates/protocol/wire.rs", "--- a/CHANGELOG.md\n+++ /dev/null")
	f.Add("/", `\..\x\.\`, "*** Update File: /home/dev/repo/CHANGELOG.md")
	f.Fuzz(func(t *testing.T, workspace, path, patch string) {
		hold := law.Check(workspace, "apply_patch", map[string]any{"path": path, "patch": patch})
		if hold.Action == None {
			return
		}
		if hold.Target == "" || hold.Invariant == "" || !strings.Contains(hold.Reason, hold.Target) {
			t.Fatalf("incomplete hold %+v", hold)
		}
		for _, c := range strings.Split(hold.Target, "/") {
			if c == "" || c == "." {
				t.Fatalf("target %q is not normalised", hold.Target)
			}
		}
	})
}
