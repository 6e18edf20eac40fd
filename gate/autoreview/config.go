package autoreview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// Rule is one validated `[[auto_review.allow]]` or `[[auto_review.block]]`
// entry. Tool is matched exactly against the raw tool name; ActionKind is a
// normalised kind ("read" … "destructive"). An empty field matches any
// call; a rule has at least one of the two.
type Rule struct{ ID, Tool, ActionKind, Reason string }

// Config is the validated `[auto_review]` table.
type Config struct{ Allow, Block []Rule }

// RawRule is one decoded rule table before validation. A nil field is a key
// the table did not have; the alias fields hold the other spellings
// Codewhale accepts for the same key.
type RawRule struct {
	ID     *string // id
	Reason *string // reason

	Tool          *string // tool
	ToolName      *string // tool_name
	ToolNameCamel *string // toolName

	ActionKind      *string // action_kind
	ActionKindCamel *string // actionKind

	TextContains      *string // text_contains (retired)
	TextContainsCamel *string // textContains (retired)
}

// RawConfig is the decoded `[auto_review]` table: its allow and block arrays.
type RawConfig struct{ Allow, Block []RawRule }

// RuleError is why Codewhale refuses to start with one rule: List is
// "allow" or "block", Index the rule's 0-based position in that array,
// Field the offending key ("" when the rule as a whole is wrong).
type RuleError struct {
	List    string
	Index   int
	Field   string
	Message string
}

func (e *RuleError) Error() string {
	at := fmt.Sprintf("auto_review.%s[%d]", e.List, e.Index)
	if e.Field != "" {
		at += "." + e.Field
	}
	return at + ": " + e.Message
}

// Rule defaults (docs/codewhale/pipeline.md §6.1). Default ids count from 1: the first
// block rule is config-block-1.
const (
	defaultIDFormat   = "config-%s-%d"
	defaultAllowWhy   = "configured auto-review allow rule"
	defaultBlockWhy   = "configured auto-review block rule"
	firstDefaultIndex = 1
)

var (
	actionKinds = []string{"read", "write", "shell", "external", "publish", "destructive"}
	// legacyKinds are retired narrow kinds block rules still accept.
	legacyKinds = map[string]string{
		"network": "external", "git": "external", "mcp_action": "external", "browser": "external",
		"unknown": "external", "secret": "destructive", "mcp_read": "read",
	}
)

// Validate applies the §6.1 defaults and checks every rule. It returns the
// rules that are valid and one error per invalid rule (the first problem
// found in it); Codewhale refuses to start when there is any error.
func Validate(raw RawConfig) (Config, []error) {
	var cfg Config
	var errs []error
	for i, r := range raw.Allow {
		rule, err := validateRule("allow", i, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Allow = append(cfg.Allow, rule)
	}
	for i, r := range raw.Block {
		rule, err := validateRule("block", i, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Block = append(cfg.Block, rule)
	}
	return cfg, errs
}

func validateRule(list string, index int, r RawRule) (Rule, error) {
	fail := func(field, format string, args ...any) (Rule, error) {
		return Rule{}, &RuleError{List: list, Index: index, Field: field, Message: fmt.Sprintf(format, args...)}
	}
	toolName, _, dup := oneOf("tool", spelling{"tool", r.Tool}, spelling{"tool_name", r.ToolName}, spelling{"toolName", r.ToolNameCamel})
	if dup != "" {
		return fail("tool", "%s", dup)
	}
	kind, _, dup := oneOf("action_kind", spelling{"action_kind", r.ActionKind}, spelling{"actionKind", r.ActionKindCamel})
	if dup != "" {
		return fail("action_kind", "%s", dup)
	}
	text, textKey, dup := oneOf("text_contains", spelling{"text_contains", r.TextContains}, spelling{"textContains", r.TextContainsCamel})
	if dup != "" {
		return fail("text_contains", "%s", dup)
	}
	if text != "" {
		return fail(textKey, "user-intent matching was retired; match on tool or action_kind instead")
	}
	if strings.TrimSpace(toolName) == "" {
		toolName = ""
	}
	kind = normaliseKind(kind)
	if toolName == "" && kind == "" {
		return fail("", "set at least one of tool or action_kind")
	}
	if kind != "" && !slices.Contains(actionKinds, kind) {
		legacy, ok := legacyKinds[kind]
		switch {
		case !ok:
			return fail("action_kind", "unknown action_kind %q (expected one of %s)", kind, strings.Join(actionKinds, ", "))
		case list == "allow":
			return fail("action_kind", "%q is a retired narrow kind, and a retired narrow kind cannot safely widen an allow rule", kind)
		}
		kind = legacy
	}
	rule := Rule{ID: deref(r.ID), Tool: toolName, ActionKind: kind, Reason: deref(r.Reason)}
	if strings.TrimSpace(rule.ID) == "" {
		rule.ID = fmt.Sprintf(defaultIDFormat, list, index+firstDefaultIndex)
	}
	if strings.TrimSpace(rule.Reason) == "" {
		rule.Reason = defaultAllowWhy
		if list == "block" {
			rule.Reason = defaultBlockWhy
		}
	}
	return rule, nil
}

// normaliseKind is Codewhale's action_kind spelling rule: trimmed, ASCII
// lower case, dashes as underscores.
func normaliseKind(kind string) string {
	return strings.ReplaceAll(ascii.Lower(strings.TrimSpace(kind)), "-", "_")
}

// spelling is one key a value may be given under.
type spelling struct {
	key   string
	value *string
}

// oneOf returns the value of a key given under one of its spellings and the
// spelling used. Two spellings of one key are a duplicate field, as
// Codewhale's decoder reports it; dup then says so.
func oneOf(key string, spellings ...spelling) (value, used, dup string) {
	var given []string
	for _, s := range spellings {
		if s.value != nil {
			given = append(given, s.key)
			value, used = *s.value, s.key
		}
	}
	if len(given) > 1 {
		return "", "", fmt.Sprintf("duplicate field %q (given as %s)", key, strings.Join(given, " and "))
	}
	return value, used, ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
