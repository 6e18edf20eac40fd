package assist

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// fields reads the scalar values of one entry (a rule, a hook) as text,
// from the parsed tree or, for broken TOML, from the line scanner.
type fields func(key string) (string, bool)

func tableFields(t *tomldoc.TableValue) fields {
	return func(key string) (string, bool) {
		e := t.Get(key)
		switch {
		case e == nil:
			return "", false
		case e.Value.Kind == tomldoc.String:
			return e.Value.Str, true
		case e.Value.Kind == tomldoc.Bool:
			return e.Value.Raw, true
		}
		return "", false
	}
}

// ruleFromFields reads a rule as far as it is readable; execpolicy's loader
// decides whether Codewhale accepts it, this only names and describes it.
func ruleFromFields(get fields) execpolicy.Rule {
	r := execpolicy.Rule{Action: execpolicy.Ask}
	r.Tool, _ = get("tool")
	optional := func(key string) *string {
		if s, ok := get(key); ok {
			return &s
		}
		return nil
	}
	r.Command, r.Path, r.Workspace = optional("command"), optional("path"), optional("workspace")
	exact, _ := get("command_exact")
	r.CommandExact = exact == "true"
	if s, ok := get("action"); ok {
		r.Action, _ = execpolicy.ParseAction(s)
	}
	return r
}

func ruleDetail(r execpolicy.Rule) string {
	rs := execpolicy.CompileRules([]execpolicy.Rule{r})
	switch {
	case len(rs.DeniedPrefixes) > 0:
		return r.Action.String() + " · hard-deny prefix"
	case len(rs.TrustedPrefixes) > 0:
		return r.Action.String() + " · trusted prefix"
	}
	return r.Action.String()
}

// hookName names a hook by its name, else its event.
func hookName(get fields) (name, detail string) {
	event, _ := get("event")
	if n, ok := get("name"); ok && strings.TrimSpace(n) != "" {
		return n, event
	}
	if event != "" {
		return event, ""
	}
	return "hook", ""
}

// autoReviewName names an [[auto_review.allow]] or [[auto_review.block]]
// rule as Codewhale does: its id, else config-<list>-<n> counting from 1.
func autoReviewName(get fields, list string, index int) (name, detail string) {
	name, ok := get("id")
	if !ok || name == "" {
		name = fmt.Sprintf("config-%s-%d", list, index+1)
	}
	var parts []string
	for _, keys := range [][]string{{"tool", "tool_name", "toolName"}, {"action_kind", "actionKind"}} {
		for _, k := range keys {
			if v, ok := get(k); ok {
				parts = append(parts, keys[0]+"="+v)
				break
			}
		}
	}
	return name, list + " " + strings.Join(parts, " ")
}
