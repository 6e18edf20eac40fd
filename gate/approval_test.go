package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// docs/codewhale/pipeline.md §8.2, disposition table
// (approval_request_disposition_preserves_legacy_branch_order + UI tests).
func TestDispositionTable(t *testing.T) {
	const name, exact, group = "exec_shell", "shell:exec_shell:0011223344556677", "shell:cargo test"
	full := authority{session.Agent, session.FullAccess, true}
	ask := authority{session.Agent, session.Ask, false}
	never := authority{session.Agent, session.Never, false}
	auto := authority{session.Agent, session.AutoReview, false}
	yolo := authority{session.Yolo, session.Ask, false}
	const desc = "Tool execution requires approval"
	rows := []struct {
		label            string
		a                authority
		approved, denied bool
		force            bool
		want             Verdict
		reason           string // prefix of the reason
	}{
		{"full access, approved+denied", full, true, true, false, Deny, "Auto-denied exec_shell"},
		{"full access, forced", full, true, false, true, Deny, "Full Access policy hold: "},
		{"full access", full, false, false, false, Allow, "approved by the Full Access posture"},
		{"ask, approved", ask, true, false, false, Allow, "approved for this session earlier"},
		{"never, approved (legacy order)", never, true, false, false, Allow, "approved for this session earlier"},
		{"never", never, false, false, false, Deny, "Blocked tool 'exec_shell' (approval_mode=never)"},
		{"auto-review", auto, false, false, false, Deny, "Auto-Review posture never opens an approval card"},
		{"auto-review, forced", auto, false, false, true, Deny, "Auto-Review posture never opens an approval card"},
		{"ask", ask, false, false, false, Ask, desc},
		{"ask, grant but forced", ask, true, false, true, Ask, desc},
		{"yolo mode, ask posture", yolo, false, false, false, Allow, "approved by the yolo mode posture"},
		{"yolo mode, forced", yolo, false, false, true, Deny, "Full Access policy hold: "},
	}
	for _, r := range rows {
		s := fakeSessions{approved: map[string]bool{}, denied: map[string]bool{}}
		if r.approved {
			s.approved[group] = true
		}
		if r.denied {
			s.denied[exact] = true
		}
		got := dispose(r.a, s, name, exact, sessionGrants(release.Release{}, name, group), r.force, desc)
		if got.verdict != r.want || !strings.HasPrefix(got.reason, r.reason) {
			t.Errorf("%s: %s %q, want %s %q", r.label, got.verdict, got.reason, r.want, r.reason)
		}
		if r.denied && got.source != "session-grant" {
			t.Errorf("%s: source %q", r.label, got.source)
		}
	}
	// A tool-name grant approves any key of that tool.
	s := approvedFor("edit_file")
	if got := dispose(ask, s, "edit_file", "file:edit_file:ffff", sessionGrants(release.Release{}, "edit_file", "file:edit_file:ffff"), false, desc); got.verdict != Allow {
		t.Errorf("tool-name grant: %+v", got)
	}
	// The forced Full Access hold names the held description.
	if got := dispose(full, NoSessions{}, name, exact, []string{group}, true, "Sandbox escalation to 'x'"); got.reason !=
		"Full Access policy hold: this call requires explicit approval that Full Access cannot give: Sandbox escalation to 'x'" {
		t.Errorf("hold reason %q", got.reason)
	}
}

// docs/codewhale/pipeline.md §8.2 row "Ask (session has shell:exec_shell:cargo test)", through
// Decide: a grant for the tool name or the grouping key approves an ordinary
// card; the same grant never passes a forced one.
func TestSessionGrantsThroughDecide(t *testing.T) {
	fx := load(t, files{git: true}).noFatal(t)
	cargo := fx.call("bash", map[string]any{"command": "cargo test"})
	for _, key := range []string{"bash", "shell:cargo test"} {
		d := fx.decide(t, cargo, Deps{Sessions: approvedFor(key)})
		if d.Decision != Allow || d.Layer != LayerApproval || d.Approval == nil || d.Approval.Source != "session-grant" {
			t.Errorf("grant %q: %s layer %d %+v", key, d.Decision, d.Layer, d.Approval)
		}
	}
	push := fx.call("bash", map[string]any{"command": "git push origin main"})
	if d := fx.decide(t, push, Deps{Sessions: approvedFor("bash", "shell:git push")}); d.Decision != Ask || !d.Prompt.Forced {
		t.Errorf("forced card with grants: %s %+v", d.Decision, d.Prompt)
	}
	// A session denial of the exact key auto-denies, even a forced card.
	exact := ExactKey("exec_shell", push.Input)
	d := fx.decide(t, push, Deps{Sessions: fakeSessions{denied: map[string]bool{exact: true}}})
	if d.Decision != Deny || d.Layer != LayerApproval || !strings.HasPrefix(d.Reason, "Auto-denied bash") {
		t.Errorf("session denial: %s layer %d %q", d.Decision, d.Layer, d.Reason)
	}
}

func hash8(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:8])
}

// docs/codewhale/pipeline.md §8.3, key formats.
func TestKeyFormats(t *testing.T) {
	write := map[string]any{"path": "src/a.rs", "content": "x"}
	shellIn := map[string]any{"command": "git status --porcelain"}
	rows := []struct {
		semantic    string
		input       map[string]any
		exact, grup string
	}{
		{"write_file", write, "file:write_file:" + hash8(`{"content":"x","path":"src/a.rs"}`), ""},
		{"edit_file", write, "file:edit_file:" + hash8(`{"content":"x","path":"src/a.rs"}`), ""},
		{"fim_edit", write, "file:fim_edit:" + hash8(`{"content":"x","path":"src/a.rs"}`), ""},
		{"exec_shell", shellIn, "shell:exec_shell:" + hash8(`{"command":"git status --porcelain"}`), "shell:git status"},
		{"exec_shell", map[string]any{"command": "git status"}, "shell:exec_shell:" + hash8(`{"command":"git status"}`), "shell:git status"},
		{"exec_shell", map[string]any{"command": ""}, "shell:exec_shell:" + hash8(`{"command":""}`), "shell:<empty>"},
		{"exec_shell", map[string]any{}, "shell:exec_shell:" + hash8(`{}`), "shell:<empty>"},
		{"task_shell_start", map[string]any{"command": "cargo test --workspace"}, "shell:task_shell_start:" + hash8(`{"command":"cargo test --workspace"}`), "shell:cargo test"},
		{"exec_wait", map[string]any{}, "shell:exec_wait:" + hash8(`{}`), "shell:<empty>"},
		{"fetch_url", map[string]any{"url": "https://example.com:8443/x?y=1"}, "net:example.com", "net:example.com"},
		{"web_fetch", map[string]any{"url": "http://docs.rs/a"}, "net:docs.rs", "net:docs.rs"},
		{"read_file", map[string]any{"path": "a"}, "tool:read_file:" + hash8(`{"path":"a"}`), ""},
		{"start_mcp_server", map[string]any{}, "tool:start_mcp_server:" + hash8(`{}`), ""},
		{"apply_patch", map[string]any{"patch": "nothing here"}, "file:apply_patch:" + hash8(`{"patch":"nothing here"}`), "patch:no_files"},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: b.rs\n*** Add File: a.rs\n*** End Patch"}, "",
			"patch:" + hash8(`["a.rs","b.rs"]`)},
		// Canonical JSON, not Go's HTML-safe escaping.
		{"exec_shell", map[string]any{"command": "cargo test && git status > out"}, "shell:exec_shell:" + hash8(`{"command":"cargo test && git status > out"}`), "shell:cargo test"},
	}
	for _, r := range rows {
		exact := ExactKey(r.semantic, r.input)
		if r.exact != "" && exact != r.exact {
			t.Errorf("ExactKey(%s, %v) = %q, want %q", r.semantic, r.input, exact, r.exact)
		}
		want := r.grup
		if want == "" {
			want = exact // "else same as exact"
		}
		if got := GroupingKey(release.Release{}, r.semantic, r.input); got != want {
			t.Errorf("GroupingKey(%s, %v) = %q, want %q", r.semantic, r.input, got, want)
		}
	}
	// Key order never changes the fingerprint; the input does.
	if ExactKey("write_file", map[string]any{"a": 1, "b": 2}) != ExactKey("write_file", map[string]any{"b": 2, "a": 1}) {
		t.Error("fingerprint depends on map order")
	}
	if ExactKey("write_file", map[string]any{"a": 1}) == ExactKey("write_file", map[string]any{"a": 2}) {
		t.Error("fingerprint ignores the input")
	}
	if !regexp.MustCompile(`^tool:x:[0-9a-f]{16}$`).MatchString(ExactKey("x", nil)) {
		t.Errorf("hash shape: %q", ExactKey("x", nil))
	}
}

// docs/codewhale/pipeline.md §8.3: "always" is offered only when eligible, with
// docs/codewhale/execpolicy.md §1.3 P's exact TOML.
func TestAlwaysChoiceEligibility(t *testing.T) {
	fx := load(t, files{git: true, law: lawJSON}).noFatal(t)
	notOffered := []string{"git push origin main", "rm -rf ~/", "curl https://example.com", "cargo test && git status"}
	for _, cmd := range notOffered {
		d := fx.decide(t, fx.call("bash", map[string]any{"command": cmd}), Deps{})
		if d.Decision != Ask || d.Prompt == nil {
			t.Fatalf("%q: %s layer %d %q", cmd, d.Decision, d.Layer, d.Reason)
		}
		if slices.Contains(d.Prompt.Choices, "always") || d.Prompt.AlwaysTOML() != "" {
			t.Errorf("%q: always offered: %v %q", cmd, d.Prompt.Choices, d.Prompt.AlwaysTOML())
		}
		if !slices.Equal(d.Prompt.Choices, []Choice{ChoiceOnce, ChoiceSession, ChoiceDeny}) {
			t.Errorf("%q: choices %v", cmd, d.Prompt.Choices)
		}
	}

	d := fx.decide(t, fx.call("bash", map[string]any{"command": "cargo test --workspace"}), Deps{})
	if d.Decision != Ask || d.Prompt == nil {
		t.Fatalf("cargo test --workspace: %s %q", d.Decision, d.Reason)
	}
	if !slices.Equal(d.Prompt.Choices, []Choice{ChoiceOnce, ChoiceSession, ChoiceAlways, ChoiceDeny}) {
		t.Errorf("choices %v", d.Prompt.Choices)
	}
	want := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test --workspace\"\ncommand_exact = true\nworkspace = \"" + fx.ws + "\"\naction = \"allow\"\n"
	if d.Prompt.AlwaysTOML() != want {
		t.Errorf("always TOML:\n%s\nwant:\n%s", d.Prompt.AlwaysTOML(), want)
	}
	if d.Prompt.ExactKey != ExactKey("exec_shell", map[string]any{"command": "cargo test --workspace"}) || d.Prompt.GroupingKey != "shell:cargo test" {
		t.Errorf("keys %q %q", d.Prompt.ExactKey, d.Prompt.GroupingKey)
	}

	// A repo-law card never offers "always" (a File write of an ask path).
	d = fx.decide(t, fx.call("File", map[string]any{"action": "write", "path": "CHANGELOG.md", "content": "x"}), Deps{})
	if d.Decision != Ask || d.Prompt == nil || !d.Prompt.Forced {
		t.Fatalf("repo-law card: %s %q", d.Decision, d.Reason)
	}
	if slices.Contains(d.Prompt.Choices, "always") {
		t.Errorf("repo-law card offers always: %v", d.Prompt.Choices)
	}

	// An ordinary write card (write .env: not carved out) offers the path rule.
	d = fx.decide(t, fx.call("write", map[string]any{"path": ".env", "content": "x"}), Deps{})
	if d.Decision != Ask || d.Prompt == nil {
		t.Fatalf("write .env: %s %q", d.Decision, d.Reason)
	}
	want = "[[rules]]\ntool = \"write_file\"\npath = \".env\"\nworkspace = \"" + fx.ws + "\"\naction = \"allow\"\n"
	if d.Prompt.AlwaysTOML() != want {
		t.Errorf("write always TOML:\n%s\nwant:\n%s", d.Prompt.AlwaysTOML(), want)
	}
}

// isRepoLawDescription is the §8.3 test: the prefix and the file name.
func TestRepoLawDescription(t *testing.T) {
	for desc, want := range map[string]bool{
		`Repo law holds this write: "x" protects a (matched a, .codewhale/constitution.json)`: true,
		`Repo law holds this write: "x"`:                            false,
		`Tool execution requires approval`:                          false,
		`x Repo law holds this write: .codewhale/constitution.json`: false,
	} {
		if got := isRepoLawDescription(desc); got != want {
			t.Errorf("%q: %v", desc, got)
		}
	}
}
