package execpolicy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// File is a loaded permissions.toml. Codewhale loads all of it or nothing:
// any problem leaves Accepted false and Rules nil.
type File struct {
	Src      []byte
	Doc      *tomldoc.Doc // nil when the text is not TOML
	Accepted bool
	Rules    []FileRule
	// Problems holds every problem in document order.
	Problems []problem.Problem
	// SerdeError is the error Codewhale's serde + toml 0.5 loader stops at
	// (the first in its visiting order), "" when accepted.
	SerdeError string
}

// FileRule is an accepted record and the table it was written as, so
// linters can point at its keys.
type FileRule struct {
	Rule  Rule
	Table *tomldoc.TableValue
	// Span is the `[[rules]]` header, or the whole inline table or array.
	Span problem.Span
	// Positional marks a rule written as an array of its field values
	// (`["exec_shell", "git push"]`); Table then holds the elements keyed
	// by the fields they fill.
	Positional bool
}

// ParseFile loads permissions.toml text with Codewhale's strict schema
// (§1.2, §7). An empty, whitespace-only or comments-only file is accepted
// with zero rules. The returned problems are a copy of File.Problems.
func ParseFile(src []byte) (*File, []problem.Problem) {
	f := &File{Src: src}
	doc, synErr := tomldoc.Parse(src)
	if synErr != nil {
		f.reject(syntaxProblem(synErr))
	} else {
		f.Doc = doc
		l := &loader{file: f}
		rules := l.root(doc.Root)
		if len(f.Problems) == 0 {
			f.Accepted, f.Rules = true, rules
		}
	}
	// Problems were collected in serde's visiting order; report them in
	// document order.
	slices.SortStableFunc(f.Problems, func(a, b problem.Problem) int { return cmp.Compare(a.Span.Start, b.Span.Start) })
	return f, slices.Clone(f.Problems)
}

// RuleValues returns the accepted records in file order.
func (f *File) RuleValues() []Rule {
	out := make([]Rule, len(f.Rules))
	for i, r := range f.Rules {
		out[i] = r.Rule
	}
	return out
}

// RecordOf maps a Source of an engine built by NewEngineFromFile back to
// the index of the record in f.Rules (promoted prefixes included).
func (f *File) RecordOf(src Source) (int, bool) {
	if src.Ruleset != 0 || src.Index < 0 {
		return 0, false
	}
	if src.Kind == TypedRule {
		return src.Index, src.Index < len(f.Rules)
	}
	want := Allow
	if src.Kind == DeniedPrefix {
		want = Deny
	}
	n := 0
	for i, r := range f.Rules {
		if r.Rule.Promoted() && r.Rule.Action == want {
			if n == src.Index {
				return i, true
			}
			n++
		}
	}
	return 0, false
}

// reject records p; serdeClass is the error Codewhale's loader would print
// had p been the first it met, which becomes SerdeError when it is.
func (f *File) reject(p problem.Problem, serdeClass string) {
	if len(f.Problems) == 0 {
		f.SerdeError = serdeClass
	}
	f.Problems = append(f.Problems, p)
}

const refusal = "Codewhale refuses to start: "
const wholeFile = "; the whole permissions.toml is rejected (there is no partial load)."

// newProblem is a rejection of the whole file, and its serde class, as
// File.reject takes them.
func newProblem(code problem.Code, span problem.Span, message, serdeClass string) (problem.Problem, string) {
	return problem.Problem{Code: code, Severity: problem.Error, Span: span,
		Message: refusal + message + wholeFile}, serdeClass
}

func syntaxProblem(e *tomldoc.SyntaxError) (problem.Problem, string) {
	class := e.Message
	message := "permissions.toml is not valid TOML: " + strings.TrimSuffix(e.Message, ".")
	if e.DuplicateKey != "" {
		message = "`" + e.DuplicateKey + "` is defined twice in the same table (TOML forbids duplicate keys)"
		path := strings.TrimSuffix(strings.TrimPrefix(e.Message, "Key '"), "' has already been defined.")
		if c, ok := duplicateKeyClass(path, e.DuplicateKey); ok {
			class = c
		}
	}
	return newProblem(problem.SyntaxError, e.Span, message, class)
}

// loader walks the tree in the order serde visits it: keys in document
// order, each value as its key is met, a missing key at the end of its
// table.
type loader struct{ file *File }

func (l *loader) root(t *tomldoc.TableValue) []FileRule {
	var rules []FileRule
	for _, e := range t.Entries {
		if e.Key != "rules" {
			l.unknownKey(e, topFields, "top-level key", "permissions.toml allows only `rules`")
			continue
		}
		rules = l.rules(e.Value)
	}
	return rules
}

func (l *loader) rules(v *tomldoc.Value) []FileRule {
	if v.Kind != tomldoc.Array {
		l.file.reject(newProblem(problem.InvalidValue, v.Span,
			"`rules` must be an array of tables (`[[rules]]` or `rules = [{…}]`), found "+describe(v),
			serdeInvalidType(v, expectSeq)))
		return nil
	}
	var out []FileRule
	for _, item := range v.Items {
		switch item.Kind {
		case tomldoc.Table:
			if r, ok := l.rule(item); ok {
				out = append(out, FileRule{Rule: r, Table: item.Table, Span: item.Span})
			}
		case tomldoc.Array:
			if r, fields, ok := l.positionalRule(item); ok {
				out = append(out, FileRule{Rule: r, Table: fields, Span: item.Span, Positional: true})
			}
		default:
			l.file.reject(newProblem(problem.InvalidValue, item.Span,
				"every entry of `rules` must be a table (or an array of its fields in order), found "+describe(item),
				serdeNotAStruct(item)))
		}
	}
	return out
}

// positionalRule decodes a rule written as an array, which serde's derived
// struct accepts as its fields in declaration order (RuleFields): every
// field but `tool` has a default, so trailing elements may be left out.
// The elements become a table keyed by field name, so the rest of the
// loader and every lint read them as they read a table's keys. More
// elements than fields is toml 0.5's error, raised once the six are read.
func (l *loader) positionalRule(item *tomldoc.Value) (Rule, *tomldoc.TableValue, bool) {
	n := len(item.Items)
	if n == 0 {
		l.file.reject(newProblem(problem.MissingKey, item.Span,
			"an empty array is not a rule: a rule written as an array starts with its `tool`, which every rule needs",
			serdeInvalidLength(0, positionalStruct)))
		return Rule{}, nil, false
	}
	fields := &tomldoc.TableValue{Inline: true}
	for i, elem := range item.Items[:min(n, len(RuleFields))] {
		fields.Entries = append(fields.Entries, &tomldoc.Entry{Key: RuleFields[i], KeySpan: elem.Span, Value: elem})
	}
	r, ok := l.rule(&tomldoc.Value{Kind: tomldoc.Table, Table: fields, Span: item.Span})
	if n > len(RuleFields) {
		extra := problem.Span{Start: item.Items[len(RuleFields)].Span.Start, End: item.Items[n-1].Span.End}
		l.file.reject(newProblem(problem.InvalidValue, extra,
			fmt.Sprintf("a rule written as an array has at most %d elements (%s), this one has %d",
				len(RuleFields), strings.Join(RuleFields, ", "), n),
			serdeInvalidLength(n, fmt.Sprintf("%d elements in sequence", len(RuleFields)))))
		ok = false
	}
	return r, fields, ok
}

func (l *loader) rule(item *tomldoc.Value) (Rule, bool) {
	r := Rule{Action: Ask}
	before := len(l.file.Problems)
	hasTool := false
	for _, e := range item.Table.Entries {
		switch e.Key {
		case "tool":
			if s, ok := l.str(e); ok {
				r.Tool, hasTool = s, true
			}
		case "command":
			if s, ok := l.str(e); ok {
				r.Command = &s
			}
		case "path":
			if s, ok := l.str(e); ok {
				r.Path = &s
			}
		case "workspace":
			if s, ok := l.str(e); ok {
				r.Workspace = &s
			}
		case "command_exact":
			if e.Value.Kind == tomldoc.Bool {
				r.CommandExact = e.Value.Bool
			} else {
				l.wrongType(e, "a boolean (true or false, unquoted)", expectBool)
			}
		case "action":
			if a, ok := l.action(e); ok {
				r.Action = a
			}
		default:
			l.unknownKey(e, RuleFields, "rule key", "")
		}
	}
	if !hasTool && item.Table.Get("tool") == nil {
		l.file.reject(newProblem(problem.MissingKey, item.Span,
			"this rule has no `tool` key, which every rule needs", missingToolSE))
	}
	return r, len(l.file.Problems) == before
}

func (l *loader) str(e *tomldoc.Entry) (string, bool) {
	if e.Value.Kind != tomldoc.String {
		l.wrongType(e, "a string", expectString)
		return "", false
	}
	return e.Value.Str, true
}

func (l *loader) wrongType(e *tomldoc.Entry, want, serdeWant string) {
	l.file.reject(newProblem(problem.InvalidValue, e.Value.Span,
		"`"+e.Key+"` must be "+want+", found "+describe(e.Value),
		serdeInvalidType(e.Value, serdeWant)))
}

func (l *loader) unknownKey(e *tomldoc.Entry, known []string, what, hint string) {
	msg := "unknown " + what + " `" + e.Key + "`"
	if near := problem.Nearest(e.Key, known); near != "" {
		msg += " (did you mean `" + near + "`?)"
	} else if hint != "" {
		msg += " (" + hint + ")"
	} else {
		msg += " (known keys: " + strings.Join(known, ", ") + ")"
	}
	l.file.reject(newProblem(problem.UnknownKey, e.KeySpan, msg, serdeUnknownField(e.Key, known)))
}

// action decodes `action` the way toml 0.5 decodes a unit-variant enum: a
// string names the variant; an inline table `{ allow = {} }` does too.
func (l *loader) action(e *tomldoc.Entry) (Action, bool) {
	v := e.Value
	bad := func(class string) (Action, bool) {
		l.file.reject(newProblem(problem.InvalidValue, v.Span,
			"`action` must be \"allow\", \"ask\" or \"deny\" (lower-case), found "+describe(v), class))
		return Ask, false
	}
	switch {
	case v.Kind == tomldoc.String:
		if a, ok := ParseAction(v.Str); ok {
			return a, true
		}
		return bad(serdeUnknownVariant(v.Str))
	case v.Kind != tomldoc.Table:
		return bad("expected string or inline table, found " + tomlTypeName(v))
	case !v.Table.Inline:
		return bad(serdeInvalidType(v, actionEnum))
	case len(v.Table.Entries) == 0:
		return bad("expected exactly 1 element, found zero elements")
	case len(v.Table.Entries) > 1:
		return bad("expected exactly 1 element, found more than 1 element")
	}
	variant := v.Table.Entries[0]
	a, ok := ParseAction(variant.Key)
	switch {
	case !ok:
		return bad(serdeUnknownVariant(variant.Key))
	case variant.Value.Kind != tomldoc.Table:
		return bad("expected table, found " + tomlTypeName(variant.Value))
	case len(variant.Value.Table.Entries) > 0:
		return bad("expected empty table")
	}
	return a, true
}

// describe names a value for a message: a string with its text, a scalar
// with its source, a container by type.
func describe(v *tomldoc.Value) string {
	switch v.Kind {
	case tomldoc.String:
		return "the string " + rustDebugString(v.Str)
	case tomldoc.Array:
		return "an array"
	case tomldoc.Table:
		return "a table"
	}
	return v.Kind.String() + " " + v.Raw
}
