package repolaw

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// The schema is checked the way serde would deserialize Codewhale's
// constitution struct, because any type error there makes the whole file
// fail to parse and Codewhale then enforces nothing:
//
//	top level                     object; unknown keys ignored; a repeated declared key fails
//	schema_version                u32 or null (integer literal 0..4294967295; 1.0, -0, 1e0 fail)
//	authority, escalate_when      array of strings (null fails)
//	branch_policy                 string or null
//	verification_policy           object or null, with before_claiming_done: array of strings
//	protected_invariants          array of (string | invariant object) (null fails)
//	invariant object              text: string, required; paths: array of strings, default [];
//	                              action: "ask" (default) | "block", exactly
//
// Scalars are taken as Option fields (null = absent) and lists as defaulted
// Vecs (null is a type error), the usual serde shape. A string with an
// unpaired \u surrogate fails wherever serde decodes it: in declared fields,
// in keys of the declared objects and anywhere inside an invariant object
// (the untagged enum buffers all of it).

// invariant is an invariant as written: an object, or a bare string (prose),
// which Codewhale only shows to the model.
type invariant struct {
	span      problem.Span
	text      jsonValue
	paths     []jsonValue
	pathsSpan problem.Span // of the paths value; empty when the key is absent
	action    Action
	prose     bool
}

type schemaChecker struct {
	problems []problem.Problem
}

// ignored records a cause that makes Codewhale drop the whole file.
func (c *schemaChecker) ignored(span problem.Span, format string, args ...any) {
	c.problems = append(c.problems, ignoredProblem(span, fmt.Sprintf(format, args...)))
}

func ignoredProblem(span problem.Span, cause string) problem.Problem {
	return problem.Problem{
		Code:     problem.ConstitutionIgnored,
		Severity: problem.Error,
		Span:     span,
		Message:  fmt.Sprintf("Codewhale ignores this constitution.json (%s): zero paths are protected", cause),
	}
}

// decodeConstitution returns the invariants of root, or problems
// when the document does not fit the schema (then the invariants are
// meaningless and the caller must enforce nothing).
func decodeConstitution(root jsonValue) ([]invariant, []problem.Problem) {
	c := &schemaChecker{}
	if root.kind != jsonObject {
		c.ignored(root.span, "the top level is %s, not an object", root.kind)
		return nil, c.problems
	}
	var invariants []invariant
	for _, m := range c.fields(root, "protected_invariants", "schema_version", "authority", "branch_policy", "escalate_when", "verification_policy") {
		switch m.key.text {
		case "schema_version":
			c.u32OrNull(m.value, "schema_version")
		case "authority", "escalate_when":
			c.strings(m.value, m.key.text)
		case "branch_policy":
			if m.value.kind != jsonNull {
				c.string(m.value, "branch_policy")
			}
		case "verification_policy":
			c.verificationPolicy(m.value)
		case "protected_invariants":
			invariants = c.invariants(m.value)
		}
	}
	if len(c.problems) > 0 {
		return nil, c.problems
	}
	return invariants, nil
}

// fields returns the members of obj whose key is declared, after checking
// that every key decodes and no declared key repeats.
func (c *schemaChecker) fields(obj jsonValue, declared ...string) []jsonMember {
	seen := map[string]bool{}
	var out []jsonMember
	for _, m := range obj.members {
		if m.key.loneSurrogate {
			c.ignored(m.key.span, "the key has an unpaired \\u surrogate escape")
			continue
		}
		if !slices.Contains(declared, m.key.text) {
			continue
		}
		if seen[m.key.text] {
			c.ignored(m.key.span, "duplicate field %q", m.key.text)
			continue
		}
		seen[m.key.text] = true
		out = append(out, m)
	}
	return out
}

func (c *schemaChecker) string(v jsonValue, what string) bool {
	switch {
	case v.kind != jsonString:
		c.ignored(v.span, "%s must be a string, not %s", what, v.kind)
		return false
	case v.loneSurrogate:
		c.ignored(v.span, "%s has an unpaired \\u surrogate escape", what)
		return false
	}
	return true
}

// strings checks an array of strings and returns its elements.
func (c *schemaChecker) strings(v jsonValue, what string) []jsonValue {
	if v.kind != jsonArray {
		c.ignored(v.span, "%s must be an array of strings, not %s", what, v.kind)
		return nil
	}
	for i, e := range v.elems {
		c.string(e, fmt.Sprintf("%s[%d]", what, i))
	}
	return v.elems
}

func (c *schemaChecker) u32OrNull(v jsonValue, what string) {
	if v.kind == jsonNull {
		return
	}
	if v.kind != jsonNumber {
		c.ignored(v.span, "%s must be an unsigned integer, not %s", what, v.kind)
		return
	}
	// serde_json reads fractions, exponents and -0 as floats, which a u32
	// field refuses; ParseUint refuses them too, and the sign.
	if _, err := strconv.ParseUint(v.text, 10, 32); err != nil {
		c.ignored(v.span, "%s must be an integer from 0 to 4294967295, not %s", what, v.text)
	}
}

func (c *schemaChecker) verificationPolicy(v jsonValue) {
	switch v.kind {
	case jsonNull:
	case jsonObject:
		for _, m := range c.fields(v, "before_claiming_done") {
			c.strings(m.value, "verification_policy.before_claiming_done")
		}
	default:
		c.ignored(v.span, "verification_policy must be an object, not %s", v.kind)
	}
}

func (c *schemaChecker) invariants(v jsonValue) []invariant {
	if v.kind != jsonArray {
		c.ignored(v.span, "protected_invariants must be an array, not %s", v.kind)
		return nil
	}
	var out []invariant
	for i, e := range v.elems {
		what := fmt.Sprintf("protected_invariants[%d]", i)
		switch e.kind {
		case jsonString:
			// Prose only: it guides the model and protects nothing.
			if c.string(e, what) {
				out = append(out, invariant{span: e.span, text: e, prose: true})
			}
		case jsonObject:
			if inv, ok := c.invariant(e, what); ok {
				out = append(out, inv)
			}
		default:
			c.ignored(e.span, "%s must be a string or an object, not %s", what, e.kind)
		}
	}
	return out
}

func (c *schemaChecker) invariant(obj jsonValue, what string) (invariant, bool) {
	before := len(c.problems)
	if span, ok := findLoneSurrogate(obj); ok {
		c.ignored(span, "%s has a string with an unpaired \\u surrogate escape", what)
		return invariant{}, false
	}
	inv := invariant{span: obj.span, action: Ask}
	hasText := false
	for _, m := range c.fields(obj, "text", "paths", "action") {
		switch m.key.text {
		case "text":
			hasText = true
			if c.string(m.value, what+".text") {
				inv.text = m.value
			}
		case "paths":
			inv.pathsSpan = m.value.span
			inv.paths = c.strings(m.value, what+".paths")
		case "action":
			inv.action = c.action(m.value, what+".action")
		}
	}
	if !hasText {
		c.ignored(obj.span, "%s has no \"text\", which is required", what)
	}
	return inv, len(c.problems) == before
}

func (c *schemaChecker) action(v jsonValue, what string) Action {
	if !c.string(v, what) {
		return None
	}
	switch v.text {
	case "ask":
		return Ask
	case "block":
		return Block
	}
	c.ignored(v.span, "%s must be \"ask\" or \"block\" exactly, not %q", what, v.text)
	return None
}

// findLoneSurrogate returns the first string or key in v that has an
// unpaired surrogate escape.
func findLoneSurrogate(v jsonValue) (problem.Span, bool) {
	if v.loneSurrogate {
		return v.span, true
	}
	for _, e := range v.elems {
		if span, ok := findLoneSurrogate(e); ok {
			return span, true
		}
	}
	for _, m := range v.members {
		if span, ok := findLoneSurrogate(m.key); ok {
			return span, true
		}
		if span, ok := findLoneSurrogate(m.value); ok {
			return span, true
		}
	}
	return problem.Span{}, false
}
