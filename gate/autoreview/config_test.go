package autoreview

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func ptr(s string) *string { return &s }

// docs/codewhale/pipeline.md §6.1 defaults, aliases and normalisation.
func TestValidateDefaults(t *testing.T) {
	raw := RawConfig{
		Allow: []RawRule{
			{Tool: ptr("bash")},
			{ID: ptr("reads"), ActionKind: ptr(" Read "), Reason: ptr("reads are fine")},
			{ToolNameCamel: ptr("File"), ActionKindCamel: ptr("WRITE")},
		},
		Block: []RawRule{
			{ToolName: ptr("exec_shell")},
			{ActionKind: ptr("network")},
			{ActionKind: ptr("secret")},
			{ActionKind: ptr("mcp-read")},
			{ID: ptr("  "), Tool: ptr("x"), Reason: ptr(""), TextContains: ptr("")},
		},
	}
	got, errs := Validate(raw)
	if len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	want := Config{
		Allow: []Rule{
			{ID: "config-allow-1", Tool: "bash", Reason: "configured auto-review allow rule"},
			{ID: "reads", ActionKind: "read", Reason: "reads are fine"},
			{ID: "config-allow-3", Tool: "File", ActionKind: "write", Reason: "configured auto-review allow rule"},
		},
		Block: []Rule{
			{ID: "config-block-1", Tool: "exec_shell", Reason: "configured auto-review block rule"},
			{ID: "config-block-2", ActionKind: "external", Reason: "configured auto-review block rule"},
			{ID: "config-block-3", ActionKind: "destructive", Reason: "configured auto-review block rule"},
			{ID: "config-block-4", ActionKind: "read", Reason: "configured auto-review block rule"},
			{ID: "config-block-5", Tool: "x", Reason: "configured auto-review block rule"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate:\n got %+v\nwant %+v", got, want)
	}
}

// docs/codewhale/pipeline.md §6.1 validation errors: one per bad rule, naming it.
func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name    string
		raw     RawConfig
		where   string // RuleError.Error() prefix
		meaning string
	}{
		{"text_contains", RawConfig{Block: []RawRule{{Tool: ptr("bash")}, {Tool: ptr("bash"), TextContains: ptr("rm")}}},
			"auto_review.block[1].text_contains: ", "user-intent matching was retired"},
		{"textContains", RawConfig{Allow: []RawRule{{ActionKind: ptr("read"), TextContainsCamel: ptr("x")}}},
			"auto_review.allow[0].textContains: ", "user-intent matching was retired"},
		{"neither", RawConfig{Allow: []RawRule{{ID: ptr("x")}}},
			"auto_review.allow[0]: ", "set at least one of tool or action_kind"},
		{"blank both", RawConfig{Block: []RawRule{{Tool: ptr("  "), ActionKind: ptr(" ")}}},
			"auto_review.block[0]: ", "set at least one of tool or action_kind"},
		{"bad kind", RawConfig{Block: []RawRule{{ActionKind: ptr("delete")}}},
			"auto_review.block[0].action_kind: ", `unknown action_kind "delete"`},
		{"legacy in allow", RawConfig{Allow: []RawRule{{ActionKind: ptr("Network")}}},
			"auto_review.allow[0].action_kind: ", "retired narrow kind cannot safely widen"},
		{"legacy mcp-read in allow", RawConfig{Allow: []RawRule{{ActionKind: ptr("mcp-read")}}},
			"auto_review.allow[0].action_kind: ", "retired narrow kind cannot safely widen"},
		{"duplicate tool", RawConfig{Allow: []RawRule{{Tool: ptr("a"), ToolNameCamel: ptr("b")}}},
			"auto_review.allow[0].tool: ", `duplicate field "tool"`},
		{"duplicate kind", RawConfig{Allow: []RawRule{{ActionKind: ptr("read"), ActionKindCamel: ptr("read")}}},
			"auto_review.allow[0].action_kind: ", `duplicate field "action_kind"`},
	}
	for _, tt := range tests {
		cfg, errs := Validate(tt.raw)
		if len(errs) != 1 {
			t.Errorf("%s: got %d errors %v, want 1", tt.name, len(errs), errs)
			continue
		}
		var re *RuleError
		if !errors.As(errs[0], &re) {
			t.Errorf("%s: error %T is not a *RuleError", tt.name, errs[0])
		}
		msg := errs[0].Error()
		if !strings.HasPrefix(msg, tt.where) || !strings.Contains(msg, tt.meaning) {
			t.Errorf("%s: error %q, want prefix %q containing %q", tt.name, msg, tt.where, tt.meaning)
		}
		if n := len(cfg.Allow) + len(cfg.Block); n != len(tt.raw.Allow)+len(tt.raw.Block)-1 {
			t.Errorf("%s: kept %d rules, want all but the bad one", tt.name, n)
		}
	}
}

// Several bad rules give several errors, in list order.
func TestValidateOneErrorPerRule(t *testing.T) {
	_, errs := Validate(RawConfig{
		Allow: []RawRule{{}, {ActionKind: ptr("git"), TextContains: ptr("x")}},
		Block: []RawRule{{ActionKind: ptr("bogus")}},
	})
	var got []string
	for _, err := range errs {
		got = append(got, strings.SplitN(err.Error(), ":", 2)[0])
	}
	want := []string{"auto_review.allow[0]", "auto_review.allow[1].text_contains", "auto_review.block[0].action_kind"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors at %q, want %q", got, want)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("bash", "shell", "", "block")
	f.Add("", "Mcp-Read", "x", "allow")
	f.Add(" ", " ", "", "allow")
	f.Fuzz(func(t *testing.T, toolName, kind, text, list string) {
		r := RawRule{Tool: &toolName, ActionKind: &kind, TextContains: &text}
		raw := RawConfig{Allow: []RawRule{r}}
		if list == "block" {
			raw = RawConfig{Block: []RawRule{r}}
		}
		cfg, errs := Validate(raw)
		for _, rule := range append(cfg.Allow, cfg.Block...) {
			if rule.ID == "" || rule.Reason == "" || rule.Tool == "" && rule.ActionKind == "" {
				t.Errorf("invalid rule kept: %+v", rule)
			}
		}
		if len(errs)+len(cfg.Allow)+len(cfg.Block) != 1 {
			t.Errorf("rule neither kept nor rejected: %v %+v", errs, cfg)
		}
	})
}
