package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

func decode(t *testing.T, name string) map[string]any {
	t.Helper()
	return decodeAt(t, name, release.Release{})
}

func decodeAt(t *testing.T, name string, r release.Release) map[string]any {
	t.Helper()
	data, ok := Get(name, r)
	if !ok {
		t.Fatalf("Get(%q) not found", name)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	return m
}

func TestSchemasAreDraft2020WithTitles(t *testing.T) {
	titles := map[string]string{
		"config":       "Codewhale config.toml",
		"permissions":  "Codewhale permissions.toml",
		"hooks":        "Codewhale project hooks.toml",
		"constitution": "Codewhale constitution.json",
	}
	if got := Names(); !slices.Equal(got, []string{"config", "permissions", "hooks", "constitution"}) {
		t.Fatalf("Names() = %v", got)
	}
	for _, name := range Names() {
		m := decode(t, name)
		if m["$schema"] != draft2020 {
			t.Errorf("%s: $schema = %v", name, m["$schema"])
		}
		if m["title"] != titles[name] {
			t.Errorf("%s: title = %v, want %q", name, m["title"], titles[name])
		}
	}
	if _, ok := Get("settings", release.Newest()); ok {
		t.Error("Get(settings) should not exist")
	}
	if _, ok := Get("../schema", release.Newest()); ok {
		t.Error("Get must not read arbitrary files")
	}
}

// The committed copies under /schemas are what editors fetch: the newest
// release's schemas, which must not drift from the embedded ones.
func TestCommittedCopiesAreIdentical(t *testing.T) {
	dir := filepath.Join("..", "..", "schemas")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var committed []string
	for _, e := range entries {
		committed = append(committed, e.Name())
	}
	var want []string
	for _, name := range Names() {
		want = append(want, name+".schema.json")
	}
	slices.Sort(want)
	if !slices.Equal(committed, want) {
		t.Errorf("schemas/ holds %v, want %v", committed, want)
	}
	for _, name := range Names() {
		embedded, _ := Get(name, release.Newest())
		onDisk, err := os.ReadFile(filepath.Join(dir, name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(embedded, onDisk) {
			t.Errorf("schemas/%s.schema.json differs from diagnostics/schema/%s.schema.json", name, name)
		}
	}
}

// walk visits every property schema (under properties, at any depth) with
// its JSON pointer.
func walk(v any, ptr string, visit func(ptr string, prop map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if k == "properties" {
				if props, ok := child.(map[string]any); ok {
					for name, p := range props {
						if pm, ok := p.(map[string]any); ok {
							visit(ptr+"/properties/"+name, pm)
						}
					}
				}
			}
			walk(child, ptr+"/"+k, visit)
		}
	case []any:
		for _, child := range v {
			walk(child, ptr+"/[]", visit)
		}
	}
}

func TestEveryPropertyIsDescribed(t *testing.T) {
	for _, r := range release.Implemented {
		for _, name := range Names() {
			everyPropertyIsDescribed(t, r.Version+" "+name, decodeAt(t, name, r))
		}
	}
}

func everyPropertyIsDescribed(t *testing.T, name string, schema map[string]any) {
	walk(schema, "#", func(ptr string, prop map[string]any) {
		if strings.Contains(ptr, "/if/") {
			return // if/then conditions only constrain
		}
		if d, _ := prop["description"].(string); strings.TrimSpace(d) == "" {
			t.Errorf("%s %s: no description", name, ptr)
		}
		if enum, ok := prop["enum"].([]any); ok {
			descs, _ := prop["enumDescriptions"].([]any)
			if len(descs) != len(enum) {
				t.Errorf("%s %s: %d enum values, %d enumDescriptions", name, ptr, len(enum), len(descs))
			}
			if def, ok := prop["default"]; ok && !slices.Contains(enum, def) {
				t.Errorf("%s %s: default %v is not an allowed value", name, ptr, def)
			}
		}
	})
}

func stringsAt(t *testing.T, m map[string]any, path ...string) []string {
	t.Helper()
	var v any = m
	for _, p := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: %q is not in an object", path, p)
		}
		v = obj[p]
	}
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i], _ = x.(string)
	}
	return out
}

// The schemas restate facts the gate already encodes; these tests keep the
// two from drifting apart.
func TestSchemasAgreeWithTheGate(t *testing.T) {
	cfg := decode(t, "config")
	if got := stringsAt(t, cfg, "properties", "approval_policy", "enum"); !slices.Equal(got, config.ValidApprovalPolicies) {
		t.Errorf("approval_policy enum %v, gate accepts %v", got, config.ValidApprovalPolicies)
	}
	if got := stringsAt(t, cfg, "properties", "sandbox_mode", "enum"); !slices.Equal(got, config.ValidSandboxModes) {
		t.Errorf("sandbox_mode enum %v, gate accepts %v", got, config.ValidSandboxModes)
	}
	events := []string{string(hooks.SessionStart), string(hooks.SessionEnd), string(hooks.MessageSubmit),
		string(hooks.ToolCallBefore), string(hooks.ToolCallAfter), string(hooks.ModeChange), string(hooks.OnError),
		string(hooks.TurnEnd), string(hooks.SubagentSpawn), string(hooks.SubagentComplete), string(hooks.ShellEnv)}
	hk := decode(t, "hooks")
	if got := stringsAt(t, hk, "$defs", "hook", "properties", "event", "enum"); !slices.Equal(got, events) {
		t.Errorf("event enum %v, want %v", got, events)
	}
	conditions := []string{string(hooks.Always), string(hooks.ToolName), string(hooks.ToolCategory),
		string(hooks.ModeIs), string(hooks.ExitCodeIs), string(hooks.AllOf), string(hooks.AnyOf)}
	if got := stringsAt(t, hk, "$defs", "condition", "properties", "type", "enum"); !slices.Equal(got, conditions) {
		t.Errorf("condition types %v, want %v", got, conditions)
	}
	// config.toml's [[hooks.hooks]] entries are the same entries as
	// hooks.toml's [[hooks]].
	for _, def := range []string{"hook", "condition"} {
		a, _ := json.Marshal(cfg["$defs"].(map[string]any)[def])
		b, _ := json.Marshal(hk["$defs"].(map[string]any)[def])
		if !bytes.Equal(a, b) {
			t.Errorf("$defs/%s differs between config and hooks schemas", def)
		}
	}
	perm := decode(t, "permissions")
	if got := stringsAt(t, perm, "$defs", "rule", "properties", "action", "enum"); !slices.Equal(got, []string{"allow", "ask", "deny"}) {
		t.Errorf("action enum %v", got)
	}
	// A rule may be an array of its fields in declaration order.
	var positional []string
	for _, item := range perm["$defs"].(map[string]any)["positionalRule"].(map[string]any)["prefixItems"].([]any) {
		ref, _ := item.(map[string]any)["$ref"].(string)
		positional = append(positional, strings.TrimPrefix(ref, "#/$defs/rule/properties/"))
	}
	if !slices.Equal(positional, execpolicy.RuleFields) {
		t.Errorf("positionalRule prefixItems %v, want %v", positional, execpolicy.RuleFields)
	}
	for _, ptr := range [][]string{{"additionalProperties"}, {"$defs", "rule", "additionalProperties"}} {
		var v any = perm
		for _, p := range ptr {
			v = v.(map[string]any)[p]
		}
		if v != false {
			t.Errorf("permissions %v = %v, want false (strict schema)", ptr, v)
		}
	}
}

// Every $ref must point at something in its own schema.
func TestRefsResolve(t *testing.T) {
	for _, name := range Names() {
		root := decodeAt(t, name, release.Newest())
		var check func(v any)
		check = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if ref, ok := v["$ref"].(string); ok {
					if _, ok := pointer(root, ref); !ok {
						t.Errorf("%s: $ref %q does not resolve", name, ref)
					}
				}
				for _, c := range v {
					check(c)
				}
			case []any:
				for _, c := range v {
					check(c)
				}
			}
		}
		check(root)
	}
}

func pointer(root map[string]any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	var v any = root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return v, true
}
