package assist

import (
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func labels(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Label
	}
	return out
}

// acceptedLine is the cursor's line after accepting the item labelled
// label.
func acceptedLine(src []byte, items []Item, label string) string {
	for _, it := range items {
		if it.Label == label {
			out := string(src[:it.Replace.Start]) + it.NewText + string(src[it.Replace.End:])
			start := strings.LastIndexByte(out[:it.Replace.Start], '\n') + 1
			end, _, _ := strings.Cut(out[start:], "\n")
			return end
		}
	}
	return "<none>"
}

func TestComplete(t *testing.T) {
	cases := []struct {
		name string
		kind config.Kind
		src  string // | marks the cursor
		want []string
		// accepted maps a label to the cursor's line once it is accepted.
		accepted map[string]string
		absent   []string
	}{
		{"rule keys not yet written", config.KindPermissions, "[[rules]]\ntool = \"exec_shell\"\n|\naction = \"deny\"\n",
			[]string{"command", "command_exact", "path", "workspace"}, map[string]string{"command": "command = "}, []string{"tool", "action"}},
		{"rule key prefix", config.KindPermissions, "[[rules]]\ncomm|", []string{"command", "command_exact"},
			map[string]string{"command_exact": "command_exact = "}, nil},
		{"action values", config.KindPermissions, "[[rules]]\naction = |",
			[]string{`"allow"`, `"ask"`, `"deny"`}, map[string]string{`"deny"`: `action = "deny"`}, nil},
		{"action value after a quote", config.KindPermissions, "[[rules]]\naction = \"a|",
			[]string{`"allow"`, `"ask"`}, map[string]string{`"allow"`: `action = "allow"`}, []string{`"deny"`}},
		{"action value after a lone quote", config.KindPermissions, "[[rules]]\naction = \"|\n",
			[]string{`"deny"`}, map[string]string{`"deny"`: `action = "deny"`}, nil},
		{"action value between auto-closed quotes", config.KindPermissions, "[[rules]]\naction = \"|\"\n",
			[]string{`"deny"`}, map[string]string{`"deny"`: `action = "deny"`}, nil},
		{"value typed with a dash", config.KindUserConfig, "approval_policy = \"on-|\n",
			[]string{`"on-request"`}, map[string]string{`"on-request"`: `approval_policy = "on-request"`}, nil},
		{"literal string value", config.KindUserConfig, "sandbox_mode = 'read|",
			[]string{`"read-only"`}, map[string]string{`"read-only"`: `sandbox_mode = 'read-only'`}, nil},
		{"tool examples", config.KindPermissions, "[[rules]]\ntool = |", []string{`"exec_shell"`, `"read_file"`, `"grep_files"`}, nil, nil},
		{"command_exact booleans", config.KindPermissions, "[[rules]]\ncommand_exact = |", []string{"true", "false"}, map[string]string{"true": "command_exact = true"}, nil},
		{"permissions top level", config.KindPermissions, "|", []string{"rules"}, nil, nil},
		{"approval_policy values", config.KindUserConfig, "approval_policy = |",
			[]string{`"on-request"`, `"untrusted"`, `"never"`, `"auto"`, `"suggest"`}, nil, nil},
		{"sandbox_mode values", config.KindUserConfig, "sandbox_mode = \"|",
			[]string{`"read-only"`, `"workspace-write"`, `"danger-full-access"`, `"external-sandbox"`}, nil, nil},
		{"top-level keys, no aliases or retired tables", config.KindUserConfig, "allow_shell = true\n|",
			[]string{"approval_policy", "sandbox_mode", "yolo", "hooks", "auto_review", "managed_config_path"},
			map[string]string{"hooks": "hooks", "yolo": "yolo = "}, []string{"allow_shell", "approvalPolicy", "general"}},
		{"hook events", config.KindUserConfig, "[[hooks.hooks]]\nevent = |",
			[]string{`"session_start"`, `"tool_call_before"`, `"shell_env"`}, nil, nil},
		{"hook keys", config.KindProjectHooks, "[[hooks]]\nevent = \"tool_call_before\"\n|",
			[]string{"command", "condition", "continue_on_error", "timeout_secs"}, nil, []string{"event"}},
		{"condition types inline", config.KindProjectHooks, "[[hooks]]\ncondition = { type = |",
			[]string{`"always"`, `"tool_name"`, `"tool_category"`, `"mode"`, `"exit_code"`, `"all"`, `"any"`}, nil, nil},
		{"condition keys inline", config.KindProjectHooks, "[[hooks]]\ncondition = { type = \"tool_category\", |",
			[]string{"category", "name"}, nil, []string{"type"}},
		{"nested condition values", config.KindUserConfig, "[[hooks.hooks]]\ncondition = { type = \"any\", conditions = [{ type = \"tool_category\", category = |",
			[]string{`"shell"`, `"safe"`, `"file_write"`, `"other"`}, nil, nil},
		{"auto_review allow kinds exclude retired ones", config.KindUserConfig, "[[auto_review.allow]]\naction_kind = |",
			[]string{`"read"`, `"publish"`}, nil, []string{`"network"`}},
		{"auto_review block kinds include retired ones", config.KindUserConfig, "[[auto_review.block]]\naction_kind = |",
			[]string{`"read"`, `"network"`, `"secret"`}, nil, nil},
		{"default_selection", config.KindUserConfig, "[approval]\ndefault_selection = |", []string{`"deny"`, `"allow_once"`}, nil, nil},
		{"trust_level", config.KindUserConfig, "[projects.\"/w\"]\ntrust_level = |", []string{`"trusted"`}, nil, nil},
		{"header tables", config.KindUserConfig, "[[hooks.|", []string{"hooks"}, nil, []string{"enabled"}},
		{"header top level", config.KindUserConfig, "[auto|", []string{"auto_review"}, map[string]string{"auto_review": "[auto_review"}, []string{"approval"}},
		{"constitution top level", config.KindConstitution, "{\n  \"schema_version\": 1,\n  |\n}",
			[]string{"protected_invariants", "authority"}, map[string]string{"authority": `  "authority": `}, []string{"schema_version"}},
		{"invariant keys", config.KindConstitution, `{"protected_invariants": [{"text": "x", |`,
			[]string{"action", "paths"}, nil, []string{"text"}},
		{"invariant key after a quote", config.KindConstitution, `{"protected_invariants": [{"pa|`,
			[]string{"paths"}, map[string]string{"paths": `{"protected_invariants": [{"paths"`}, nil},
		{"invariant action values", config.KindConstitution, `{"protected_invariants": [{"action": |}]}`,
			[]string{`"ask"`, `"block"`}, map[string]string{`"block"`: `{"protected_invariants": [{"action": "block"}]}`}, nil},
		{"invariant action value after a quote", config.KindConstitution, `{"protected_invariants": [{"action": "b|`,
			[]string{`"block"`}, map[string]string{`"block"`: `{"protected_invariants": [{"action": "block"`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			off := strings.IndexByte(c.src, '|')
			src := []byte(c.src[:off] + c.src[off+1:])
			items := Complete(c.kind, src, off, release.Release{})
			got := labels(items)
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %q in %v", w, got)
				}
			}
			for _, a := range c.absent {
				if slices.Contains(got, a) {
					t.Errorf("unexpected %q in %v", a, got)
				}
			}
			for label, want := range c.accepted {
				if got := acceptedLine(src, items, label); got != want {
					t.Errorf("accepting %q gives %q, want %q", label, got, want)
				}
			}
		})
	}
}

func TestCompleteNothing(t *testing.T) {
	cases := []struct {
		kind config.Kind
		src  string
	}{
		{config.KindPermissions, "[[rules]]\naction = \"deny\"|\n"},      // after a finished value
		{config.KindPermissions, "# a comment |\n"},                      // in a comment
		{config.KindPermissions, "[[rules]]\nunknown = |"},               // a value of an unknown key
		{config.KindSettings, "|"},                                       // no schema
		{config.KindConstitution, `{"protected_invariants": ["text|"]}`}, // an advisory string
	}
	for _, c := range cases {
		off := strings.IndexByte(c.src, '|')
		src := []byte(c.src[:off] + c.src[off+1:])
		if items := Complete(c.kind, src, off, release.Release{}); len(items) != 0 {
			t.Errorf("%q: unexpected %v", c.src, labels(items))
		}
	}
}

func TestCompletionDocumentation(t *testing.T) {
	items := Complete(config.KindPermissions, []byte("[[rules]]\naction = "), 19, release.Release{})
	if len(items) != 3 {
		t.Fatalf("action values: %v, want allow, ask and deny", labels(items))
	}
	for _, it := range items {
		if it.Kind != ItemValue || it.Documentation == "" {
			t.Errorf("%+v: want a documented value", it)
		}
		if (it.Detail == "default") != (it.Label == `"ask"`) {
			t.Errorf("%+v: only ask is the default", it)
		}
	}
	keys := Complete(config.KindPermissions, []byte("[[rules]]\n"), 10, release.Release{})
	if len(keys) == 0 {
		t.Fatal("no keys completed in a [[rules]] table")
	}
	for _, it := range keys {
		if it.Kind != ItemKey || !strings.Contains(it.Documentation, "**`"+it.Label+"`**") {
			t.Errorf("%+v: want a documented key", it)
		}
	}
}
