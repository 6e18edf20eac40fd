package assist

import (
	"encoding/json"
	"strconv"
	"strings"
)

// code renders s as Markdown inline code, with a fence longer than any run
// of backticks inside it.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// literal is how a value of n is written in the file: strings quoted.
func literal(n *node, v string) string {
	if n.is("string") {
		return strconv.Quote(v)
	}
	return v
}

// typeName names the types of n in the words of the file's format.
func typeName(n *node, toml bool) string {
	var parts []string
	for _, t := range n.types() {
		switch {
		case t == "object" && toml:
			t = "table"
		case t == "array":
			if items := n.items(); items != nil && len(items.types()) == 1 {
				elem := items.types()[0]
				switch {
				case elem == "object" && toml:
					elem = "tables"
				case elem == "object":
					elem = "objects"
				default:
					elem += "s"
				}
				t = "array of " + elem
			}
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " or ")
}

// keyDoc is the Markdown description of a key: its name, type and
// default, what Codewhale does with it, and its allowed values.
func keyDoc(key string, n *node, toml bool) string {
	var b strings.Builder
	b.WriteString("**" + code(key) + "**")
	if t := typeName(n, toml); t != "" {
		b.WriteString(" · " + t)
	}
	if def, ok := n.get("default"); ok {
		if raw, err := json.Marshal(def); err == nil {
			b.WriteString(" · default " + code(string(raw)))
		}
	}
	if d := n.str("description"); d != "" {
		b.WriteString("\n\n" + d)
	}
	if values := n.enum(); len(values) > 0 {
		b.WriteString("\n\nAllowed values:")
		for _, v := range values {
			b.WriteString("\n- " + code(literal(n, v.value)))
			if v.meaning != "" {
				b.WriteString(": " + v.meaning)
			}
		}
	} else if ex := n.strings("examples"); len(ex) > 0 {
		quoted := make([]string, len(ex))
		for i, e := range ex {
			quoted[i] = code(literal(n, e))
		}
		b.WriteString("\n\nCommon values: " + strings.Join(quoted, ", "))
	}
	return b.String()
}
