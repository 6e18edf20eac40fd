// Package agents reads other coding agents' pre-tool hook events as
// Codewhale calls and writes Codewhale's verdict back in each agent's own
// answer form (docs/agents.md), and runs the whole hook (HookFlow: the
// workspaces, the deadline, the editor's ask, the log). It decides
// nothing itself: the gate does, through the HookFlow's Decide.
package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// MaxEventBytes bounds a hook event read from stdin: a tool input larger
// than this is refused (denied), never read whole.
const MaxEventBytes = 8 << 20

// Call is one agent tool call translated to Codewhale's vocabulary.
type Call struct {
	// Tool and Input are Codewhale's tool name and input (docs/agents.md,
	// "Mapping"); a tool without a counterpart keeps the agent's name.
	Tool  string
	Input map[string]any
	// AgentTool is the agent's own tool name, for messages.
	AgentTool string
	// Cwd is the agent's working directory (absolute): relative paths are
	// anchored there (Call.Anchor) and the workspaces found from it.
	Cwd string
	// ProjectDir is the session's project directory where the event names
	// it (Cursor's workspace_roots); see Agent.ProjectEnv for the others.
	ProjectDir string
	CallID     string
	// Session is the agent's own session id (Agent.SessionField), "" when
	// the event names none: a "for this session" answer is granted to this
	// session of this agent alone (approvals.Session).
	Session string
	// Each, when set, splits the call into several Codewhale calls that
	// must each be allowed (a fetch of every URL a prompt names); Input is
	// then the first of them.
	Each []map[string]any
	// NeedsHuman is why codewhale-ls cannot see what the call reaches, so
	// a human decides it (gate.Request.NeedsHuman).
	NeedsHuman string
	// NoAsk, when set, is why this call's "ask" would not reach a person
	// although the agent can usually ask (Claude Code in bypassPermissions
	// mode approves an ask by itself): such an ask is answered with a deny.
	NoAsk string
}

// Reply is the verdict to give the agent.
type Reply struct {
	Verdict gate.Verdict
	// Reason is Codewhale's reason, or what went wrong in the hook.
	Reason string
	// Layer is the layer whose verdict stands, 0 for the hook's own
	// failures; a refusal names it in words when no file position does.
	Layer gate.Layer
	// Location is where the rule that decided is written, or what stops
	// Codewhale (gate.Decision.Location).
	Location *gate.Location
}

// Output is what the hook process writes and how it exits.
type Output struct {
	Stdout string
	Stderr string
	Exit   int
}

// Agent is one agent's hook protocol.
type Agent struct {
	Name string
	// Example is a small event of the agent's for a shell call (`git
	// status`), for a person trying the hook by hand.
	Example string
	// HookTimeout is how long the agent waits for a hook by default; an
	// editor's prompt must end before it.
	HookTimeout time.Duration
	// NoAsk is why an "ask" answer would not reach the agent's user (the
	// agent has no ask, or may approve one by itself); "" when it does.
	// Where Codewhale needs a human and neither an editor nor the approval
	// console can ask, such an agent gets a deny that says so (Final). For
	// Gemini CLI and Copilot CLI it is set because the hook cannot tell
	// when their ask reaches a person (docs/agents.md, "Telling an
	// interactive session from a headless one").
	NoAsk string
	// ProjectEnv names the environment variable in which the agent gives
	// its hook the session's project directory (Claude Code's
	// CLAUDE_PROJECT_DIR, Gemini CLI's GEMINI_PROJECT_DIR); "" when it
	// gives none. Only the agent's own variable is read: another agent's,
	// inherited from a terminal it was started in, says nothing of this one.
	ProjectEnv string
	// SessionField is the event's field holding the agent's session id
	// (Claude Code, Codex and Gemini CLI's session_id, Copilot CLI's
	// sessionId, Cursor's conversation_id; agents/testdata/captured).
	SessionField string
	// Settings are where the agent reads its hooks and what our entry
	// there looks like (package install writes it).
	Settings Settings
	parse    func(event map[string]json.RawMessage) (Call, error)
	render   func(Reply) Output
}

var all = map[string]*Agent{
	claudeCode.Name: claudeCode,
	codex.Name:      codex,
	geminiCLI.Name:  geminiCLI,
	copilotCLI.Name: copilotCLI,
	cursor.Name:     cursor,
}

// Lookup returns the agent called name.
func Lookup(name string) (*Agent, bool) {
	a, ok := all[name]
	return a, ok
}

// Names lists the agents, sorted.
func Names() []string { return slices.Sorted(maps.Keys(all)) }

// Parse reads one hook event (exactly one JSON object) as a Call. An
// empty or malformed event is an error naming what is wrong.
func (a *Agent) Parse(data []byte) (Call, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Call{}, errors.New("the hook event is empty: stdin held no JSON")
	}
	var event map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&event); err != nil {
		return Call{}, fmt.Errorf("the hook event is not a JSON object: %v", jsonError(err, len(data)))
	}
	if event == nil {
		return Call{}, errors.New("the hook event is not a JSON object")
	}
	if dec.More() {
		return Call{}, fmt.Errorf("trailing data after the hook event at byte %d", dec.InputOffset())
	}
	call, err := a.parse(event)
	if err != nil {
		return Call{}, err
	}
	if call.AgentTool == "" {
		return Call{}, errors.New("the hook event names no tool")
	}
	if call.Input == nil {
		call.Input = map[string]any{}
	}
	if _, err := field(event, a.SessionField, &call.Session); err != nil {
		return Call{}, err
	}
	return call, nil
}

// NoApprover is how a deny for want of a person ends: no editor or
// approval console answered, and the agent cannot ask either. It names
// both ways to get an approver (docs/agents.md, "Who is asked").
const NoApprover = "no editor or approval console is serving approvals for this repository: run `codewhale-ls approvals` in a terminal, or open the repository in your editor with codewhale-ls, to be asked"

// Final is the verdict the agent is given for r, the last step of the
// order in which a person is looked for (the editor serving the
// repository, the approval console, then the agent's own prompt: the
// hook's flow has tried the first two when Final sees an ask): an ask the
// agent cannot put to its own user is a deny that says so and how to get
// an approver (NoApprover), and anything but allow or ask is a deny. A deny or an ask says who refused and where to look
// (named); the reply it returns has nothing left to name, so Final of it
// changes nothing.
func (a *Agent) Final(r Reply, call Call) Reply {
	noAsk := a.noAskOf(call)
	if r.Verdict == gate.Ask && noAsk != "" {
		r.Verdict, r.Reason = gate.Deny, fmt.Sprintf("Codewhale's policy needs a human's approval (%s), and %s; %s", r.Reason, noAsk, NoApprover)
	}
	if r.Verdict != gate.Allow && r.Verdict != gate.Ask {
		r.Verdict = gate.Deny
	}
	if r.Verdict != gate.Allow {
		r.Reason, r.Layer, r.Location = named(r), 0, nil
	}
	return r
}

// noAskOf is why an ask of call would not reach the agent's user ("" when
// it would): the call's own reason (its mode), else the agent's.
func (a *Agent) noAskOf(call Call) string {
	if call.NoAsk != "" {
		return call.NoAsk
	}
	return a.NoAsk
}

// Answer renders Final(r) in the agent's form.
func (a *Agent) Answer(r Reply) Output {
	return a.render(a.Final(r, Call{}))
}

// Deny is the answer for anything that went wrong before a decision.
func (a *Agent) Deny(reason string) Output {
	return a.Answer(Reply{Verdict: gate.Deny, Reason: reason})
}

// jsonError says where in the event's size bytes decoding failed.
func jsonError(err error, size int) string {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("%v at byte %d", err, syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("it ends early, at byte %d", size)
	}
	return err.Error()
}

// field decodes event[name] into v when present; a wrong type is an error
// naming the field.
func field(event map[string]json.RawMessage, name string, v any) (bool, error) {
	raw, ok := event[name]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("field %q of the hook event: %v", name, err)
	}
	return true, nil
}

// common reads the fields most agents share: tool name, tool input
// object, cwd and a call id.
func common(event map[string]json.RawMessage, toolField, inputField, idField string) (name string, input map[string]any, cwd, id string, err error) {
	if _, err = field(event, toolField, &name); err != nil {
		return
	}
	if _, err = field(event, inputField, &input); err != nil {
		return
	}
	if _, err = field(event, "cwd", &cwd); err != nil {
		return
	}
	if idField != "" {
		_, err = field(event, idField, &id)
	}
	return
}

// encode renders v as one JSON line, `<`, `>` and `&` kept readable.
func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return b.String()
}
