package execpolicy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// FormatRule renders r as the `[[rules]]` table the approval card appends:
// keys tool, command, command_exact (only when true), path, workspace,
// action (only when not ask).
func FormatRule(r Rule) string {
	var b strings.Builder
	b.WriteString("[[rules]]\n")
	for _, kv := range recordFields(r) {
		b.WriteString(kv[0])
		b.WriteString(" = ")
		b.WriteString(kv[1])
		b.WriteByte('\n')
	}
	return b.String()
}

// FormatInlineRule renders r as the inline table appended to a file that
// writes `rules = [ … ]`.
func FormatInlineRule(r Rule) string {
	parts := []string{}
	for _, kv := range recordFields(r) {
		parts = append(parts, kv[0]+" = "+kv[1])
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// recordFields lists the written keys in order with TOML values.
func recordFields(r Rule) [][2]string {
	fields := [][2]string{{"tool", tomlString(r.Tool)}}
	if r.Command != nil {
		fields = append(fields, [2]string{"command", tomlString(*r.Command)})
	}
	if r.CommandExact {
		fields = append(fields, [2]string{"command_exact", "true"})
	}
	if r.Path != nil {
		fields = append(fields, [2]string{"path", tomlString(*r.Path)})
	}
	if r.Workspace != nil {
		fields = append(fields, [2]string{"workspace", tomlString(*r.Workspace)})
	}
	if r.Action != Ask {
		fields = append(fields, [2]string{"action", tomlString(r.Action.String())})
	}
	return fields
}

// tomlString is a TOML basic string. TOML text must be UTF-8, so invalid
// bytes (which Codewhale's Rust strings cannot hold) become U+FFFD.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, string(utf8.RuneError)) {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
