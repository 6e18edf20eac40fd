package execpolicy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// The serde error classes below are what Codewhale's loader (serde derive
// with deny_unknown_fields over toml 0.5's deserializer) reports for the
// first error it meets, without toml's position suffix. The struct and
// enum names are those serde derive prints.

// ActionNames are the values `action` takes.
var ActionNames = []string{"allow", "ask", "deny"}

// RuleFields are a rule's keys in declaration order, which is also the
// order of a rule written as an array.
var RuleFields = []string{"tool", "command", "command_exact", "path", "workspace", "action"}

var (
	topFields        = []string{"rules"}
	ruleStruct       = "struct ToolAskRule"
	positionalStruct = fmt.Sprintf("%s with %d elements", ruleStruct, len(RuleFields))
	actionEnum       = "enum PermissionAction"
	expectString     = "a string"
	expectBool       = "a boolean"
	expectSeq        = "a sequence"
	missingToolSE    = "missing field `tool`"
)

// serdeOneOf is serde's list of expected names.
func serdeOneOf(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	switch len(names) {
	case 0:
		return "there are no fields"
	case 1:
		return "expected " + quoted[0]
	case 2:
		return "expected " + quoted[0] + " or " + quoted[1]
	}
	return "expected one of " + strings.Join(quoted, ", ")
}

func serdeUnknownField(key string, known []string) string {
	return "unknown field `" + key + "`, " + serdeOneOf(known)
}

func serdeUnknownVariant(name string) string {
	return "unknown variant `" + name + "`, " + serdeOneOf(ActionNames)
}

func serdeDuplicate(key string) string { return "duplicate field `" + key + "`" }

func serdeInvalidLength(n int, expected string) string {
	return fmt.Sprintf("invalid length %d, expected %s", n, expected)
}

// serdeNotAStruct is the class of a `rules` entry that is neither a table
// nor an array. toml 0.5 hands a datetime to serde as a map with one
// private key, which the rule struct refuses as an unknown field.
func serdeNotAStruct(v *tomldoc.Value) string {
	if v.Kind == tomldoc.Datetime {
		return serdeUnknownField(datetimeField, RuleFields)
	}
	return serdeInvalidType(v, ruleStruct)
}

// datetimeField is the key toml 0.5 gives a datetime's one-entry map.
const datetimeField = "$__toml_private_datetime"

func serdeInvalidType(v *tomldoc.Value, expected string) string {
	return "invalid type: " + serdeUnexpected(v) + ", expected " + expected
}

// serdeUnexpected is serde's Unexpected for a toml 0.5 value; toml 0.5
// hands datetimes to serde as a map.
func serdeUnexpected(v *tomldoc.Value) string {
	switch v.Kind {
	case tomldoc.String:
		return "string " + rustDebugString(v.Str)
	case tomldoc.Integer:
		return fmt.Sprintf("integer `%d`", v.Int)
	case tomldoc.Float:
		return "floating point `" + rustFloat(v.Float) + "`"
	case tomldoc.Bool:
		return fmt.Sprintf("boolean `%t`", v.Bool)
	case tomldoc.Array:
		return "sequence"
	}
	return "map"
}

// tomlTypeName is toml 0.5's own name for a value, used in its
// "expected X, found Y" enum errors.
func tomlTypeName(v *tomldoc.Value) string {
	switch v.Kind {
	case tomldoc.Float:
		return "float"
	case tomldoc.Table:
		if v.Table != nil && v.Table.Inline {
			return "inline table"
		}
		return "table"
	}
	return v.Kind.String()
}

// rustFloat is serde's float display: Rust's shortest round-trip digits,
// never an exponent, and ".0" added to integral finite values.
func rustFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// rustDebugString is Rust's `{:?}` for a str: quoted, with \t \r \n \0 \\ \"
// escaped and non-printable or combining characters as \u{…}.
func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\n':
			b.WriteString(`\n`)
		case 0:
			b.WriteString(`\0`)
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		default:
			if unicode.IsPrint(r) && !unicode.In(r, unicode.Mn, unicode.Me) {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, `\u{%x}`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// duplicateKeyClass is the serde class of a key tomldoc reports twice: a
// known field is a "duplicate field", an unknown one fails earlier, at its
// first occurrence, as an unknown field. path is the dotted key of the
// BurntSushi message.
func duplicateKeyClass(path, key string) (string, bool) {
	inRule, ok := strings.CutPrefix(path, "rules.")
	switch {
	case path == key:
		if key == "rules" {
			return serdeDuplicate(key), true
		}
		return serdeUnknownField(key, topFields), true
	case ok && inRule == key:
		if slices.Contains(RuleFields, key) {
			return serdeDuplicate(key), true
		}
		return serdeUnknownField(key, RuleFields), true
	}
	return "", false
}
