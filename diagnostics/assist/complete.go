package assist

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// ItemKind is what a completion inserts.
type ItemKind int

const (
	ItemKey ItemKind = iota + 1
	ItemValue
)

// Item is one completion candidate.
type Item struct {
	Label, Detail, Documentation string
	Kind                         ItemKind
	InsertText                   string
}

// Complete offers the keys and enum values valid at offset: the keys of
// the table (or object) the cursor is in that are not written yet, the
// tables a header may name, or the allowed values after `key = `. Where
// the user has already typed an opening quote, InsertText leaves it out.
func Complete(kind config.Kind, src []byte, offset int) []Item {
	root := rootNode(kind)
	if root == nil || offset < 0 || offset > len(src) {
		return nil
	}
	toml := kind != config.KindConstitution
	var st scanState
	if toml {
		_, st = scanTOML(src, offset, true)
		if st.set && !st.atValue && !st.inHeader {
			st.present = append(st.present, sectionKeys(src, offset)...)
		}
	} else {
		st = jsonState(src, parseTolerantJSON(src), nil, offset)
	}
	if !st.set {
		return nil
	}
	n := root.walk(st.path)
	if n == nil {
		return nil
	}
	switch {
	case st.atValue:
		return valueItems(n, st)
	case st.inHeader:
		return keyItems(n, st, toml, func(m *node) bool { return m.tableLike() })
	}
	return keyItems(n, st, toml, func(*node) bool { return true })
}

func keyItems(n *node, st scanState, toml bool, fits func(*node) bool) []Item {
	var out []Item
	members := n.container().members()
	for _, k := range n.offered() {
		m := members[k]
		if slices.Contains(st.present, k) || !fits(m) || !hasPrefixFold(k, st.partial) {
			continue
		}
		out = append(out, Item{Label: k, Detail: typeName(m, toml), Documentation: keyDoc(k, m, toml),
			Kind: ItemKey, InsertText: keyInsert(k, m, st, toml)})
	}
	return out
}

// keyInsert is the text that writes key: in TOML `key = ` for a value
// (a table's key alone, to go on with `.` or a header); in JSON the
// quoted key and its colon.
func keyInsert(key string, m *node, st scanState, toml bool) string {
	switch {
	case !toml && st.quoted:
		return key
	case !toml:
		return strconv.Quote(key) + ": "
	case st.inHeader || m.tableLike():
		return tomlKey(key)
	}
	return tomlKey(key) + " = "
}

// tomlKey quotes a key that is not a bare TOML key.
func tomlKey(k string) string {
	for i := 0; i < len(k); i++ {
		if !isBareKeyByte(k[i]) {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func valueItems(n *node, st scanState) []Item {
	var out []Item
	for _, v := range n.suggestions() {
		if !hasPrefixFold(v.value, st.partial) {
			continue
		}
		text := literal(n, v.value)
		if st.quoted {
			text = v.value
		}
		detail := ""
		if isDefault(n, v.value) {
			detail = "default"
		}
		out = append(out, Item{Label: literal(n, v.value), Detail: detail, Documentation: v.meaning,
			Kind: ItemValue, InsertText: text})
	}
	return out
}

// hasPrefixFold is the server-side filter: the typed prefix, ignoring case
// (the client ranks what is left).
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isDefault(n *node, value string) bool {
	def, ok := n.get("default")
	if !ok {
		return false
	}
	raw, err := json.Marshal(def)
	return err == nil && string(raw) == literal(n, value)
}
