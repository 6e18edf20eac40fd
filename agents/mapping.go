package agents

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/hardening"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// counterpart is the Codewhale tool an agent's tool stands for, and where
// the input fields Codewhale's layers read come from: fields[f] lists the
// agent's names for Codewhale's field f, first present wins.
type counterpart struct {
	tool   string
	fields map[string][]string
	// values translates an agent's value of a field into Codewhale's, where
	// the two spell it differently; a nil translation drops the field. A
	// value not listed passes unchanged, for Codewhale to judge.
	values map[string]map[any]any
	// harmless are the agent's fields that change neither what runs nor
	// where (a description, a timeout): they are not passed on, so a
	// read-only shell command stays one for Codewhale.
	harmless []string
	// onlyWith[f] = g: Codewhale's field f means something only beside g
	// (a justification beside an escalation); without g it is dropped.
	onlyWith map[string]string
	// fixed are Codewhale fields whose value the agent's tool implies (a
	// sub-agent tool is Codewhale's agent tool with action "start").
	fixed map[string]any
	// closed: Codewhale decides the counterpart by its name (and fields)
	// alone, so the agent's other fields are not passed on (a to-do list's
	// items, a question's text) and cannot be mistaken for Codewhale's.
	closed bool
	// hold, when set, is why a human decides every call of this tool
	// (Call.NeedsHuman): it can do more than its counterpart shows.
	hold string
	// commands are the agent's fields that hold a shell command, each
	// with the shapes its tool takes it in: the command becomes the line
	// Codewhale decides (commandLine), and a call whose command has
	// another shape, or has none, is refused.
	commands map[string]commandShape
}

// commandShape is a set of the shapes an agent's shell tool takes its
// command in.
type commandShape int

const (
	// asText: one string, the line a shell runs.
	asText commandShape = 1 << iota
	// asArgv: an array of strings, the program and its arguments, run as
	// they are (Codex's shell and local_shell).
	asArgv
)

// The Codewhale tools agents' tools map to, with the fields each reads.
// A shell tool takes its command as a string unless it says otherwise
// (takingArgv).
func shell(from ...string) counterpart {
	c := counterpart{tool: "exec_shell", fields: map[string][]string{"command": from}, commands: map[string]commandShape{}}
	for _, f := range from {
		c.commands[f] = asText
	}
	return c
}

// takingArgv: the agent's command field also takes an argv, which
// Codewhale decides as the line that runs it.
func (c counterpart) takingArgv(field string) counterpart {
	c.commands = plus(c.commands, field, c.commands[field]|asArgv)
	return c
}
func read(from ...string) counterpart {
	return counterpart{tool: "read_file", fields: map[string][]string{"path": from}}
}
func write(path, content []string) counterpart {
	return counterpart{tool: "write_file", fields: map[string][]string{"path": path, "content": content}}
}
func edit(from ...string) counterpart {
	return counterpart{tool: "edit_file", fields: map[string][]string{"path": from}}
}
func patch(from ...string) counterpart {
	return counterpart{tool: "apply_patch", fields: map[string][]string{"patch": from}}
}
func listDir(from ...string) counterpart {
	return counterpart{tool: "list_dir", fields: map[string][]string{"path": from}}
}
func search(codewhaleTool string, pattern, path []string) counterpart {
	return counterpart{tool: codewhaleTool, fields: map[string][]string{"pattern": pattern, "path": path}}
}
func fetch(from ...string) counterpart {
	return counterpart{tool: "fetch_url", fields: map[string][]string{"url": from}}
}
func webSearch(from ...string) counterpart {
	return counterpart{tool: "web_search", fields: map[string][]string{"query": from}}
}

func names(n ...string) []string { return n }

// bookkeeping is an agent tool that touches nothing outside the agent (a
// to-do list, a plan, a skill's instructions, a question to its user),
// decided as Codewhale decides its own counterpart, by name.
func bookkeeping(codewhaleTool string) counterpart {
	return counterpart{tool: codewhaleTool, closed: true}
}

// subAgent starts a sub-agent: Codewhale's agent tool, action "start",
// whose role decides whether it needs approval (a read-only role such as
// explore does not); each of the sub-agent's own tool calls reaches the
// hook in turn.
func subAgent(role ...string) counterpart {
	return counterpart{tool: "agent", fields: map[string][]string{"role": role}, fixed: map[string]any{"action": "start"}, closed: true}
}

// skill loads a skill's instructions, which can run shell commands of
// their own (a `!` line of a SKILL.md) that never reach a hook as the
// agent's shell tool: a human decides.
func skill() counterpart {
	c := bookkeeping("load_skill")
	c.hold = "A skill's instructions can run shell commands of their own, which no hook sees, so a human decides whether to load it."
	return c
}

// sameShell acts on a shell the agent already started (its output, its
// input, its end): Codewhale's tool for that, by name.
func sameShell(codewhaleTool string) counterpart {
	return counterpart{tool: codewhaleTool, closed: true}
}

// plus is a copy of m with key set to v: the tables are built as shared
// values, so a builder never writes into another counterpart's map.
func plus[K comparable, V any](m map[K]V, key K, v V) map[K]V {
	out := make(map[K]V, len(m)+1)
	maps.Copy(out, m)
	out[key] = v
	return out
}

// with adds a field Codewhale's layers read to a counterpart, from the
// agent's names for it (a shell call that asks to leave the sandbox, or to
// run in the background, is stricter for Codewhale under its own name).
func (c counterpart) with(field string, from ...string) counterpart {
	c.fields = plus(c.fields, field, from)
	return c
}

// keepingOnlyWith drops Codewhale's field when the one it explains is
// absent (see counterpart.onlyWith).
func (c counterpart) keepingOnlyWith(field, with string) counterpart {
	c.onlyWith = plus(c.onlyWith, field, with)
	return c
}

// ignoring marks fields of the agent's tool as harmless (see counterpart).
func (c counterpart) ignoring(fields ...string) counterpart {
	c.harmless = append(slices.Clone(c.harmless), fields...)
	return c
}

// translating gives field's agent values their Codewhale spelling.
func (c counterpart) translating(field string, values map[any]any) counterpart {
	c.values = plus(c.values, field, values)
	return c
}

// value is v, an agent's value of field, as Codewhale spells it; dropped
// says Codewhale has no spelling for it because it asks for nothing.
func (c counterpart) value(field string, v any) (translated any, dropped bool) {
	table := c.values[field]
	if table == nil {
		return v, false
	}
	if !isComparable(v) {
		return v, false
	}
	t, listed := table[v]
	if !listed {
		return v, false
	}
	return t, t == nil
}

// isComparable: JSON values that can be a map key (not objects or arrays).
func isComparable(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// UnmappedPrefix starts the Codewhale name of an agent's tool that has no
// counterpart: no Codewhale tool has such a name, so Codewhale decides it
// as an unknown tool (a layer-2 deny).
const UnmappedPrefix = "unmapped:"

// codewhaleReads are the input keys Codewhale's layers interpret for some
// tool (gate/: the shell's shape and escalation, the targets of a file
// tool, a patch, a URL, a sub-agent's role, code).
var codewhaleReads = map[string]bool{
	"command": true, "cwd": true, "timeout_ms": true, "action": true, "stdin": true,
	"background": true, "interactive": true, "tty": true, "combined_output": true,
	"sandbox_permissions": true, "justification": true,
	"path": true, "target": true, "destination": true, "file_path": true, "content": true,
	"patch": true, "input": true, "code": true, "role": true, "url": true,
	"pattern": true, "query": true, "wait": true, "open": true, "click": true,
}

// translate maps an agent's tool call to Codewhale's. A tool with a
// counterpart gets the fields Codewhale's layers read, each taken from the
// agent's own field for it: a field the agent's tool ignores (an extra
// "path" beside Claude's file_path, an extra "command" beside Codex's cmd)
// must not be judged in place of the one the agent acts on. Where the
// agent has several names for one field and the input gives them
// different values, which one it uses is unknown, so the call is refused.
// The agent's other fields are passed on as they are, so that Codewhale
// sees a shell call that asks for more than a command (a shell binary, a
// detached run) as more than a read-only command; but one spelled as a
// field Codewhale interprets, and not mapped, is refused, since Codewhale
// would read it with its own meaning. Fields marked harmless are dropped.
// An MCP tool spelled mcp__server__tool becomes mcp_server_tool; any other
// tool without a counterpart is named UnmappedPrefix + its name, with its
// input, so Codewhale decides it as an unknown tool.
func translate(table map[string]counterpart, agentTool string, input map[string]any) (string, map[string]any, error) {
	c, ok := table[agentTool]
	if !ok {
		out := maps.Clone(input)
		if out == nil {
			out = map[string]any{}
		}
		if live, isMCP := tool.LiveMCPName(agentTool); isMCP {
			return mcpName(agentTool, live), out, nil
		}
		// Not under its own name: an agent's tool that shares a name with
		// one of Codewhale's (Codex's read_file reads file_path, Gemini's
		// bare-named tools) would be judged as Codewhale's tool, with
		// Codewhale's fields, and never as what it is.
		return UnmappedPrefix + agentTool, out, nil
	}
	out := map[string]any{}
	consumed := map[string]bool{}
	for _, f := range c.harmless {
		consumed[f] = true
	}
	for field, from := range c.fields {
		chosen, chosenValue := "", any(nil)
		for _, f := range from {
			name, _, _ := strings.Cut(f, "[]")
			consumed[name] = true
			v, present, err := lookup(input, f)
			if err != nil {
				return "", nil, fmt.Errorf("field \"tool_input\": %s: %v", agentTool, err)
			}
			if !present {
				continue
			}
			if shape, isCommand := c.commands[f]; isCommand {
				if v, err = commandLine(agentTool, f, v, shape); err != nil {
					return "", nil, fmt.Errorf("field \"tool_input\": %v", err)
				}
			}
			v, dropped := c.value(field, v)
			if chosen == "" {
				chosen, chosenValue = f, v
				if !dropped {
					out[field] = v
				}
				continue
			}
			if !reflect.DeepEqual(v, chosenValue) {
				return "", nil, fmt.Errorf("field \"tool_input\": %s gives %q and %q different values; which one %s acts on is unknown, so the call is refused", agentTool, chosen, f, agentTool)
			}
		}
	}
	if _, hasCommand := out["command"]; len(c.commands) > 0 && !hasCommand {
		return "", nil, fmt.Errorf("field \"tool_input\": %s gives no command (%s): a shell call is decided by its command, so one without it is refused", agentTool, quotedList(c.fields["command"]))
	}
	for field, with := range c.onlyWith {
		if _, ok := out[with]; !ok {
			delete(out, field)
		}
	}
	for k, v := range c.fixed {
		out[k] = v
	}
	if c.closed {
		return c.tool, out, nil
	}
	for k, v := range input {
		switch {
		case consumed[k]:
		case codewhaleReads[k]:
			return "", nil, fmt.Errorf("field \"tool_input\": %s has a field %q that %s does not read for this tool and Codewhale would read with its own meaning, so the call is refused", agentTool, k, agentTool)
		default:
			out[k] = v
		}
	}
	return c.tool, out, nil
}

// mcpName is the Codewhale name of an agent's MCP tool: live, its
// mcp_<server>_<tool> name as Codewhale names its own MCP tools, unless
// that is a built-in tool's name (mcp_read_resource, mcp_get_prompt,
// which need no approval): a server's name is the MCP configuration's
// choice, which a repository's .mcp.json makes. Then it keeps the
// agent's mcp__server__tool spelling, which Codewhale registers as an MCP
// tool and no built-in has.
func mcpName(agentSpelling, live string) string {
	if gate.Builtin(live) {
		return agentSpelling
	}
	return live
}

// lookup reads the agent's field name from input. "name[]" is an array
// whose elements must all be one value, and "name[].sub" the sub field of
// each element object: a call naming several targets (VS Code's editFiles
// with two files) cannot be one Codewhale call, and deciding only one of
// them would let the others through, so it is refused.
func lookup(input map[string]any, name string) (value any, present bool, err error) {
	array, sub, isArray := strings.Cut(name, "[]")
	if !isArray {
		value, present = input[name]
		return value, present, nil
	}
	raw, present := input[array]
	if !present {
		return nil, false, nil
	}
	elements, ok := raw.([]any)
	if text, isText := raw.(string); isText && sub == "" {
		// One target may be given bare (Copilot's paths: a string or an
		// array of them).
		elements, ok = []any{text}, true
	}
	if !ok || len(elements) == 0 {
		return nil, false, fmt.Errorf("%q is not a non-empty array", array)
	}
	sub = strings.TrimPrefix(sub, ".")
	for i, e := range elements {
		if sub != "" {
			object, ok := e.(map[string]any)
			if !ok {
				return nil, false, fmt.Errorf("%s[%d] is not an object", array, i)
			}
			e = object[sub]
		}
		if i > 0 && !reflect.DeepEqual(e, value) {
			return nil, false, fmt.Errorf("%q names more than one target (%v and %v); Codewhale decides a call for one, so a call for several is refused", name, value, e)
		}
		value = e
	}
	return value, true, nil
}

// commandLine is the shell line an agent's command field holds, in one of
// the shapes its tool takes (shape): a string as it is; an argv as the line
// that runs exactly that argv (hardening.ArgvLine: ["bash", "-lc", "git
// push"] is `bash -lc 'git push'`), so that every layer reads the command
// the agent will run. Any other shape (a number, an object, null, an
// argv where the tool takes a string, an empty argv or one holding
// anything but strings) is an error naming the field and what is wrong:
// Codewhale's layers read only a string, and would let a command they
// cannot read pass every rule.
func commandLine(agentTool, field string, v any, shape commandShape) (string, error) {
	takes := "a string"
	if shape&asArgv != 0 {
		takes = "a string or an array of strings (an argv)"
	}
	switch v := v.(type) {
	case string:
		if shape&asText != 0 {
			return v, nil
		}
	case []any:
		if shape&asArgv == 0 {
			break
		}
		if len(v) == 0 {
			return "", fmt.Errorf("%s's %q is an empty array: an argv names at least the program to run, so the call is refused", agentTool, field)
		}
		argv := make([]string, len(v))
		for i, e := range v {
			word, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("%s's %q[%d] is %s: an argv holds only strings, so the call is refused", agentTool, field, i, jsonKind(e))
			}
			if strings.IndexByte(word, 0) >= 0 {
				return "", fmt.Errorf("%s's %q[%d] holds a NUL byte, which no program's argument can, so the call is refused", agentTool, field, i)
			}
			argv[i] = word
		}
		return hardening.ArgvLine(argv), nil
	}
	return "", fmt.Errorf("%s's %q is %s, where %s takes its command as %s, so the call is refused", agentTool, field, jsonKind(v), agentTool, takes)
}

// jsonKind names the kind of a decoded JSON value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// quotedList is names as "a" or "b".
func quotedList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, " or ")
}
