package hooks

import (
	"fmt"
	"slices"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

var hookKeys = []string{"event", "command", "name", "timeout_secs", "background", "continue_on_error", "condition"}

// conditionArgs is the one extra key each condition type takes.
var conditionArgs = map[ConditionType]string{
	Always: "", ToolName: "name", ToolCategory: "category", ModeIs: "mode",
	ExitCodeIs: "code", AllOf: "conditions", AnyOf: "conditions",
}

var conditionTypes = []string{string(Always), string(ToolName), string(ToolCategory), string(ModeIs),
	string(ExitCodeIs), string(AllOf), string(AnyOf)}

// hookEntries are the entries validation points at.
type hookEntries struct {
	command, timeout, background, continueOnError *tomldoc.Entry
}

// decodeHook decodes one [[hooks]] item and reports whether Codewhale keeps it.
func (l *loader) decodeHook(item *tomldoc.Value, index int) (Hook, bool) {
	h := Hook{TimeoutSecs: DefaultTimeoutSecs, ContinueOnError: true, Condition: Condition{Type: Always},
		Source: l.source, Index: index, Span: item.Span}
	if item.Kind != tomldoc.Table {
		l.fail(problem.InvalidValue, item.Span, fmt.Sprintf("a hook entry must be a table, not %s %s", article(item.Kind), item.Kind))
		return h, false
	}
	t := item.Table
	l.unknownKeys(t, hookKeys, "a hook entry")
	causes := len(l.causes)
	var es hookEntries
	if l.require(t, item.Span, "event", "this hook entry") {
		if name, e := l.stringAt(t, "event"); e != nil {
			h.Event = l.event(e, name)
		}
	}
	if l.require(t, item.Span, "command", "this hook entry") {
		h.Command, es.command = l.stringAt(t, "command")
	}
	h.Name, _ = l.stringAt(t, "name")
	if n, e := l.uintAt(t, "timeout_secs"); e != nil {
		h.TimeoutSecs, es.timeout = n, e
	}
	h.Background, es.background = l.boolAt(t, "background", false)
	h.ContinueOnError, es.continueOnError = l.boolAt(t, "continue_on_error", true)
	if e := t.Get("condition"); e != nil {
		h.Condition = l.condition(e.Value)
	}
	if len(l.causes) > causes {
		return h, false
	}
	return h, l.validate(h, es)
}

// event checks an event name; an unknown one fails the whole file.
func (l *loader) event(e *tomldoc.Entry, name string) Event {
	known := Events(l.release)
	for _, ev := range known {
		if string(ev) == name {
			return ev
		}
	}
	names := make([]string, len(known))
	for i, ev := range known {
		names[i] = string(ev)
	}
	hint := problem.DidYouMean(name, names)
	if slices.Contains(stateEvents, Event(name)) {
		hint = fmt.Sprintf(" (an event since Codewhale %s; %s does not know it)", release.FifteenHookEvents.Since, l.release.Name())
	}
	l.fail(problem.InvalidValue, e.Value.Span, fmt.Sprintf("unknown hook event %q%s", name, hint))
	return ""
}

// condition decodes a `{type = ...}` table (serde's internally tagged enum).
func (l *loader) condition(v *tomldoc.Value) Condition {
	c := Condition{Type: Always, Span: v.Span}
	if v.Kind != tomldoc.Table {
		l.fail(problem.InvalidValue, v.Span, fmt.Sprintf("a hook condition must be a table like { type = \"always\" }, not %s %s", article(v.Kind), v.Kind))
		return c
	}
	t := v.Table
	if !l.require(t, v.Span, "type", "this condition") {
		return c
	}
	name, e := l.stringAt(t, "type")
	if e == nil {
		return c
	}
	arg, known := conditionArgs[ConditionType(name)]
	if !known {
		l.fail(problem.InvalidValue, e.Value.Span, fmt.Sprintf("unknown condition type %q%s", name, problem.DidYouMean(name, conditionTypes)))
		return c
	}
	c.Type = ConditionType(name)
	keys := []string{"type"}
	if arg != "" {
		keys = append(keys, arg)
	}
	l.unknownKeys(t, keys, fmt.Sprintf("a %s condition", name))
	if arg == "" || !l.require(t, v.Span, arg, fmt.Sprintf("this %s condition", name)) {
		return c
	}
	c.ArgSpan = t.Get(arg).Value.Span
	switch c.Type {
	case ExitCodeIs:
		c.Code, _ = l.intAt(t, arg)
	case AllOf, AnyOf:
		for _, item := range l.arrayAt(t, arg) {
			c.Conditions = append(c.Conditions, l.condition(item))
		}
	default:
		c.Arg, _ = l.stringAt(t, arg)
	}
	return c
}
