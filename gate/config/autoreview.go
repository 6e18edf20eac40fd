package config

import (
	"fmt"
	"slices"

	"github.com/codewhale-ls/codewhale-ls/gate/autoreview"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

var autoReviewRuleKeys = []string{"id", "reason", "tool", "tool_name", "toolName", "action_kind", "actionKind", "text_contains", "textContains"}

// loadAutoReview reads [auto_review] allow/block rules; a rule Codewhale
// rejects at start stops it (CW603).
func (s *Snapshot) loadAutoReview(f *File, t *tomldoc.TableValue) {
	if t == nil {
		return
	}
	var raw autoreview.RawConfig
	rules := map[string][]*tomldoc.TableValue{}
	headers := map[string][]problem.Span{} // each rule's [[...]] header or inline table
	for _, list := range []string{"allow", "block"} {
		e := t.Get(list)
		if e == nil {
			continue
		}
		if e.Value.Kind != tomldoc.Array {
			f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: auto_review.%s must be an array of tables", list))
			s.Policy.Fatal = append(s.Policy.Fatal, fmt.Sprintf("config.toml auto_review.%s is not an array of tables", list))
			continue
		}
		for _, item := range e.Value.Items {
			if item.Kind != tomldoc.Table {
				f.add(problem.InvalidValue, problem.Error, item.Span, fmt.Sprintf("Codewhale refuses to start: every auto_review.%s entry must be a table", list))
				s.Policy.Fatal = append(s.Policy.Fatal, fmt.Sprintf("config.toml auto_review.%s has a non-table entry", list))
				continue
			}
			rules[list] = append(rules[list], item.Table)
			headers[list] = append(headers[list], item.Span)
			r := s.rawRule(f, item.Table)
			if list == "allow" {
				raw.Allow = append(raw.Allow, r)
			} else {
				raw.Block = append(raw.Block, r)
			}
		}
	}
	cfg, errs := autoreview.Validate(raw)
	s.AutoReview = cfg
	for _, err := range errs {
		span := problem.Span{}
		if re, ok := err.(*autoreview.RuleError); ok && re.Index < len(rules[re.List]) {
			rt := rules[re.List][re.Index]
			span = tableSpan(rt)
			if len(rt.Entries) == 0 {
				span = headers[re.List][re.Index]
			}
			if e := first(rt, fieldAliases(re.Field)...); e != nil {
				span = e.Value.Span
			}
		}
		f.add(problem.AutoReviewRuleRejected, problem.Error, span, "Codewhale refuses to start: "+err.Error())
		s.Policy.Fatal = append(s.Policy.Fatal, "config.toml "+err.Error())
	}
}

func fieldAliases(field string) []string {
	switch field {
	case "tool":
		return []string{"tool", "tool_name", "toolName"}
	case "action_kind":
		return []string{"action_kind", "actionKind"}
	case "text_contains":
		return []string{"text_contains", "textContains"}
	}
	return []string{field}
}

// tableSpan is where to point at a table as a whole: its first key.
func tableSpan(t *tomldoc.TableValue) problem.Span {
	if len(t.Entries) > 0 {
		return t.Entries[0].KeySpan
	}
	return problem.Span{}
}

func (s *Snapshot) rawRule(f *File, t *tomldoc.TableValue) autoreview.RawRule {
	str := func(key string) *string {
		e := t.Get(key)
		if e == nil {
			return nil
		}
		if e.Value.Kind != tomldoc.String {
			f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: auto_review %s must be a string", key))
			s.Policy.Fatal = append(s.Policy.Fatal, fmt.Sprintf("config.toml auto_review %s is not a string", key))
			return nil
		}
		v := e.Value.Str
		return &v
	}
	for _, e := range t.Entries {
		if !slices.Contains(autoReviewRuleKeys, e.Key) {
			f.add(problem.UnknownKey, problem.Warning, e.KeySpan, fmt.Sprintf("Codewhale ignores `%s` in an auto_review rule%s", e.Key, problem.DidYouMean(e.Key, autoReviewRuleKeys)))
		}
	}
	return autoreview.RawRule{
		ID: str("id"), Reason: str("reason"),
		Tool: str("tool"), ToolName: str("tool_name"), ToolNameCamel: str("toolName"),
		ActionKind: str("action_kind"), ActionKindCamel: str("actionKind"),
		TextContains: str("text_contains"), TextContainsCamel: str("textContains"),
	}
}
