package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// Request is an AuthorizeRequest (docs/codewhale/contract.md §3) after validation.
type Request struct {
	Tool      string
	Input     map[string]any
	Workspace string
	Mode      session.Mode
	// Posture is nil when the request leaves it to layer 1.
	Posture         *session.Posture
	Origin          session.Origin
	CallID          *string
	AllowedTools    []string // nil = no list
	DisallowedTools []string
	hasAllowList    bool
	// OutsideSandbox: the call will not run in Codewhale's OS sandbox
	// (another agent's call, through `codewhale-ls hook`), so what that
	// sandbox would refuse is refused here instead: the read deny-list
	// meets the paths a shell command names (docs/agents.md). Set by
	// codewhale-ls, never read from a request; it only tightens.
	OutsideSandbox bool
	// NeedsHuman, for another agent's call, is why codewhale-ls cannot see
	// what the call reaches (a fetch whose URLs are inside a free-text
	// prompt, none found): a forced hold at layer 7, so a human decides.
	// Set by codewhale-ls, never read from an AuthorizeRequest; it only
	// tightens.
	NeedsHuman string
	// AskedForHuman: whoever sends the call decided it already and found
	// that a person must decide (another agent's hook, asking the editor
	// over the approval socket). An allow that needs nobody is then a
	// disagreement between the two deciders, which approvals.Authorizer
	// denies. Set by codewhale-ls, never read from a request; it only
	// tightens.
	AskedForHuman bool
}

// HasAllowList distinguishes an empty allow list (nothing allowed) from none.
func (r Request) HasAllowList() bool { return r.hasAllowList }

// WithAllowList sets the allow list (nil slice = no list is not expressible
// here: use the zero Request for that).
func (r Request) WithAllowList(names []string) Request {
	r.AllowedTools, r.hasAllowList = names, true
	return r
}

// RequestError names the field that made a request unreadable.
type RequestError struct {
	Field   string
	Message string
}

func (e *RequestError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Message)
}

var requestFields = []string{"tool", "input", "workspace", "mode", "posture", "origin", "callId", "allowedTools", "disallowedTools"}

// authorizeRequest is an AuthorizeRequest's JSON form (docs/codewhale/contract.md
// §3), the fields of requestFields in the contract's order. omitzero keeps
// an empty list apart from none: a nil list is left out (no list), an
// empty one is written as [] (nothing allowed).
type authorizeRequest struct {
	Tool            string         `json:"tool"`
	Input           map[string]any `json:"input"`
	Workspace       string         `json:"workspace,omitempty"`
	Mode            string         `json:"mode"`
	Posture         string         `json:"posture,omitempty"`
	Origin          string         `json:"origin"`
	CallID          *string        `json:"callId,omitempty"`
	AllowedTools    []string       `json:"allowedTools,omitzero"`
	DisallowedTools []string       `json:"disallowedTools,omitzero"`
}

// EncodeRequest writes req as the AuthorizeRequest ParseRequest reads back
// as req: every field of the contract's request, the mode and origin
// always, the others where req sets them. What codewhale-ls sets and no
// request carries (OutsideSandbox, NeedsHuman, AskedForHuman) is not
// written.
func EncodeRequest(req Request) ([]byte, error) {
	wire := authorizeRequest{
		Tool: req.Tool, Input: req.Input, Workspace: req.Workspace,
		Mode: req.Mode.String(), Origin: req.Origin.String(), CallID: req.CallID,
		DisallowedTools: req.DisallowedTools,
	}
	if req.Posture != nil {
		wire.Posture = req.Posture.String()
	}
	if req.HasAllowList() {
		wire.AllowedTools = req.AllowedTools
		if wire.AllowedTools == nil {
			wire.AllowedTools = []string{}
		}
	}
	return json.Marshal(wire)
}

// ParseRequest reads an AuthorizeRequest over defaults: a field the request
// leaves out keeps its value from defaults (workspace, mode, posture,
// origin). Unknown fields, wrong types and missing required fields are
// errors naming the field.
func ParseRequest(data []byte, defaults Request) (Request, error) {
	raw, err := requestMembers(data)
	if err != nil {
		return Request{}, err
	}
	var unknown []string
	for k := range raw {
		if !slices.Contains(requestFields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Request{}, &RequestError{Field: unknown[0], Message: "unknown field (known: " + strings.Join(requestFields, ", ") + ")"}
	}
	req := Request{Workspace: defaults.Workspace, Mode: defaults.Mode, Posture: defaults.Posture, Origin: defaults.Origin}
	if err := requiredString(raw, "tool", &req.Tool); err != nil {
		return req, err
	}
	in, ok := raw["input"]
	if !ok {
		return req, &RequestError{Field: "input", Message: "required"}
	}
	if err := json.Unmarshal(in, &req.Input); err != nil || req.Input == nil {
		return req, &RequestError{Field: "input", Message: "must be a JSON object"}
	}
	if ws, ok, err := optionalString(raw, "workspace"); err != nil {
		return req, err
	} else if ok {
		if !filepath.IsAbs(ws) {
			return req, &RequestError{Field: "workspace", Message: fmt.Sprintf("must be an absolute path, got %q", ws)}
		}
		req.Workspace = filepath.Clean(ws)
	}
	if s, ok, err := optionalString(raw, "mode"); err != nil {
		return req, err
	} else if ok {
		m, valid := ParseContractMode(s)
		if !valid {
			return req, &RequestError{Field: "mode", Message: fmt.Sprintf("must be one of plan, agent, operate, yolo; got %q", s)}
		}
		req.Mode = m
	}
	if s, ok, err := optionalString(raw, "posture"); err != nil {
		return req, err
	} else if ok {
		p, valid := ParseContractPosture(s)
		if !valid {
			return req, &RequestError{Field: "posture", Message: fmt.Sprintf("must be one of ask, auto-review, full-access, never; got %q", s)}
		}
		req.Posture = &p
	}
	if s, ok, err := optionalString(raw, "origin"); err != nil {
		return req, err
	} else if ok {
		o, valid := session.ParseOrigin(s)
		if !valid {
			return req, &RequestError{Field: "origin", Message: fmt.Sprintf("must be one of interactive, background, headless; got %q", s)}
		}
		req.Origin = o
	}
	if s, ok, err := optionalString(raw, "callId"); err != nil {
		return req, err
	} else if ok {
		req.CallID = &s
	}
	if list, ok, err := optionalStrings(raw, "allowedTools"); err != nil {
		return req, err
	} else if ok {
		req = req.WithAllowList(list)
	}
	if list, _, err := optionalStrings(raw, "disallowedTools"); err != nil {
		return req, err
	} else {
		req.DisallowedTools = list
	}
	return req, nil
}

// ParseContractMode reads the contract's mode spellings exactly.
func ParseContractMode(s string) (session.Mode, bool) {
	switch s {
	case "plan":
		return session.Plan, true
	case "agent":
		return session.Agent, true
	case "operate":
		return session.Operate, true
	case "yolo":
		return session.Yolo, true
	}
	return session.Agent, false
}

// ParseContractPosture reads the contract's posture spellings exactly.
func ParseContractPosture(s string) (session.Posture, bool) {
	switch s {
	case "ask":
		return session.Ask, true
	case "auto-review":
		return session.AutoReview, true
	case "full-access":
		return session.FullAccess, true
	case "never":
		return session.Never, true
	}
	return session.Ask, false
}

// requestMembers is the request object's members, unparsed. A request
// that json.Unmarshal takes whole (the common case, one pass) is one the
// decoder below takes the same way; anything else goes through the
// decoder, whose errors name what is wrong and where.
func requestMembers(data []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) == nil && raw != nil {
		return raw, nil
	}
	return decodeMembers(data)
}

// decodeMembers is requestMembers by the decoder alone.
func decodeMembers(data []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, &RequestError{Message: "request is not a JSON object: " + jsonErr(err)}
	}
	if raw == nil {
		return nil, &RequestError{Message: "request is not a JSON object"}
	}
	if dec.More() {
		return nil, &RequestError{Message: "trailing data after the request object"}
	}
	return raw, nil
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

func requiredString(raw map[string]json.RawMessage, field string, dst *string) error {
	s, ok, err := optionalString(raw, field)
	if err != nil {
		return err
	}
	if !ok {
		return &RequestError{Field: field, Message: "required"}
	}
	if s == "" {
		return &RequestError{Field: field, Message: "must not be empty"}
	}
	*dst = s
	return nil
}

func optionalString(raw map[string]json.RawMessage, field string) (string, bool, error) {
	v, ok := raw[field]
	if !ok || string(v) == "null" {
		return "", false, nil
	}
	s, ok := plainString(v)
	if !ok {
		if err := json.Unmarshal(v, &s); err != nil {
			return "", false, &RequestError{Field: field, Message: "must be a string"}
		}
	}
	if err := checkNameLength(field, s); err != nil {
		return "", false, err
	}
	return s, true, nil
}

// plainString is the value of a JSON string without escapes, control
// characters or invalid UTF-8, which json.Unmarshal would decode to the
// same bytes: the common case, read without a second pass.
func plainString(v json.RawMessage) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// MaxNameBytes bounds every name-like string of a request (tool, callId,
// workspace, mode, posture, origin, the tool lists). Each is quoted in
// reasons, prompts and every decision-log line, so an agent sending a
// name of megabytes would make each of those megabytes long; no real tool
// name, call id or path comes near it (model APIs cap tool names at 64
// characters, Linux paths at 4096 bytes).
const MaxNameBytes = 4096

func checkNameLength(field, s string) error {
	if len(s) > MaxNameBytes {
		return &RequestError{Field: field, Message: fmt.Sprintf("is %d bytes long; at most %d are accepted", len(s), MaxNameBytes)}
	}
	return nil
}

func optionalStrings(raw map[string]json.RawMessage, field string) ([]string, bool, error) {
	v, ok := raw[field]
	if !ok || string(v) == "null" {
		return nil, false, nil
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, false, &RequestError{Field: field, Message: "must be an array of strings"}
	}
	for _, name := range list {
		if err := checkNameLength(field, name); err != nil {
			return nil, false, err
		}
	}
	if list == nil {
		list = []string{}
	}
	return list, true, nil
}
