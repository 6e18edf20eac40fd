package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Every schema renders for every implemented release, as JSON without
// the release annotations.
func TestEverySchemaRendersForEveryRelease(t *testing.T) {
	for _, r := range release.Implemented {
		for _, name := range Names() {
			data, ok := Get(name, r)
			if !ok {
				t.Errorf("%s %s: not rendered (an annotation names no release change?)", r.Version, name)
				continue
			}
			if !json.Valid(data) || bytes.Contains(data, []byte("x-codewhale")) {
				t.Errorf("%s %s: invalid or annotated output", r.Version, name)
			}
		}
	}
	if _, err := forRelease([]byte(`{"properties": {"a": {"x-codewhale-since": "no such change"}}}`), release.Newest()); err == nil {
		t.Error("an annotation naming no release change rendered")
	}
}

func present(m map[string]any, path ...string) bool {
	var v any = m
	for _, p := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = obj[p]; !ok {
			return false
		}
	}
	return true
}

// The keys and values each release reads (docs/codewhale/releases/0.10.0.md
// B.1, B.3, B.11; releases/0.10.1.md D.9), and a shape that stays the same
// where no release changed it.
func TestSchemasPerRelease(t *testing.T) {
	releases := []string{"0.9.10", "0.10.0", "0.10.1"}
	keys := []struct {
		schema string
		path   []string
		in     []bool // per release above
	}{
		{"config", []string{"properties", "sandbox_network_access"}, []bool{false, true, true}},
		{"config", []string{"properties", "sandbox_read_denylist_defaults"}, []bool{false, true, true}},
		{"config", []string{"properties", "sandbox_denied_read_paths"}, []bool{false, true, true}},
		{"config", []string{"properties", "sandbox_read_denylist_exempt"}, []bool{false, true, true}},
		{"config", []string{"properties", "project_instruction_imports"}, []bool{false, true, true}},
		{"config", []string{"properties", "compaction"}, []bool{false, true, true}},
		{"config", []string{"properties", "approval", "properties", "timeout_seconds"}, []bool{false, true, true}},
		{"config", []string{"properties", "tools", "properties", "user_input_timeout_seconds"}, []bool{false, true, true}},
		{"config", []string{"properties", "tools", "properties", "user_input_max_questions"}, []bool{false, true, true}},
		{"config", []string{"properties", "tools", "properties", "user_input_max_options"}, []bool{false, true, true}},
		{"config", []string{"properties", "features", "properties", "code_mode"}, []bool{false, true, true}},
		{"config", []string{"properties", "tools", "properties"}, []bool{false, true, true}},
		{"config", []string{"properties", "context", "properties", "enabled"}, []bool{true, true, false}},
		{"config", []string{"properties", "tui", "properties", "terminal_probe_timeout_ms"}, []bool{true, true, false}},
		{"config", []string{"properties", "approval_policy"}, []bool{true, true, true}},
	}
	for _, k := range keys {
		for i, v := range releases {
			r := release.MustOf(v)
			if got := present(decodeAt(t, k.schema, r), k.path...); got != k.in[i] {
				t.Errorf("%s %s %v: present = %v, want %v", v, k.schema, k.path, got, k.in[i])
			}
		}
	}
	events := []string{string(hooks.SessionStart), string(hooks.SessionEnd), string(hooks.MessageSubmit),
		string(hooks.ToolCallBefore), string(hooks.ToolCallAfter), string(hooks.ModeChange), string(hooks.OnError),
		string(hooks.TurnEnd), string(hooks.SubagentSpawn), string(hooks.SubagentComplete), string(hooks.ShellEnv)}
	fifteen := append(slices.Clone(events), "session_idle", "session_error", "waiting_for_user", "session_busy")
	for i, v := range releases {
		r := release.MustOf(v)
		want := fifteen
		if i == 0 {
			want = events
		}
		for _, name := range []string{"hooks", "config"} {
			if got := stringsAt(t, decodeAt(t, name, r), "$defs", "hook", "properties", "event", "enum"); !slices.Equal(got, want) {
				t.Errorf("%s %s: events %v, want %v", v, name, got, want)
			}
		}
		hk := decodeAt(t, "hooks", r)
		if yolo := slices.Contains(stringsAt(t, hk, "$defs", "condition", "properties", "mode", "examples"), "yolo"); yolo != (i == 0) {
			t.Errorf("%s: a yolo mode condition offered = %v", v, yolo)
		}
		digest := strings.Contains(hk["description"].(string), "/hooks approve")
		if digest != (i > 0) {
			t.Errorf("%s: hooks.toml description mentions digest approval = %v", v, digest)
		}
		// permissions.toml's shape is the same in every release; only what
		// a path or a command means changed.
		perm := decodeAt(t, "permissions", r)
		var fields []string
		for f := range perm["$defs"].(map[string]any)["rule"].(map[string]any)["properties"].(map[string]any) {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		if !slices.Equal(fields, []string{"action", "command", "command_exact", "path", "tool", "workspace"}) {
			t.Errorf("%s: rule fields %v", v, fields)
		}
		path := perm["$defs"].(map[string]any)["rule"].(map[string]any)["properties"].(map[string]any)["path"].(map[string]any)["description"].(string)
		if rooted := strings.Contains(path, "inside or outside the workspace"); rooted != (i > 0) {
			t.Errorf("%s: path description speaks of rooted paths = %v: %s", v, rooted, path)
		}
	}
}
