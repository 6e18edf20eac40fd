package assist

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// ItemKind is what a completion inserts.
type ItemKind int

const (
	ItemKey ItemKind = iota + 1
	ItemValue
)

// Item is one completion candidate: accepting it replaces the bytes of
// Replace with NewText.
type Item struct {
	Label, Detail, Documentation string
	Kind                         ItemKind
	NewText                      string
	// Replace is what the user typed of the key or value, opening quote
	// included, and the closing quote right after the cursor if there is
	// one. Editors that replace only the word before the cursor (Neovim's
	// keywords stop at `"` and `-`) would otherwise keep part of it and
	// insert it again.
	Replace problem.Span
}

// Complete offers the keys and enum values valid at offset: the keys of
// the table (or object) the cursor is in that are not written yet, the
// tables a header may name, or the allowed values after `key = `, as
// release rel has them.
func Complete(kind config.Kind, src []byte, offset int, rel release.Release) []Item {
	root := rootNode(kind, rel)
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
	typed, quote := typedSpan(src, st, offset)
	var items []Item
	switch {
	case st.atValue:
		items = valueItems(n, st, quote)
	case st.inHeader:
		items = keyItems(n, st, toml, func(m *node) bool { return m.tableLike() })
	default:
		items = keyItems(n, st, toml, func(*node) bool { return true })
	}
	for i := range items {
		items[i].Replace = typed
	}
	return items
}

// typedSpan is the text a completion replaces: from where the key or
// value starts to the cursor, and over the closing quote of an open
// string when the editor already put one right after the cursor. quote
// is the string's opening quote, 0 outside a string.
func typedSpan(src []byte, st scanState, offset int) (typed problem.Span, quote byte) {
	lineStart := bytes.LastIndexByte(src[:offset], '\n') + 1
	from := st.typedFrom
	if from < lineStart || from > offset {
		from = offset // the scanners only see the cursor's line
	}
	end := offset
	if st.quoted && from < offset {
		quote = src[from]
		if end < len(src) && src[end] == quote {
			end++
		}
	}
	return problem.Span{Start: from, End: end}, quote
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
			Kind: ItemKey, NewText: keyInsert(k, m, st, toml)})
	}
	return out
}

// keyInsert is the text that writes key: in TOML `key = ` for a value
// (a table's key alone, to go on with `.` or a header); in JSON the
// quoted key and its colon, or the quoted key alone where the user opened
// the quote (a colon may follow already).
func keyInsert(key string, m *node, st scanState, toml bool) string {
	switch {
	case !toml && st.quoted:
		return strconv.Quote(key)
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

// valueItems are the values n allows; a string value is written with the
// quote the user opened (TOML's literal strings use ').
func valueItems(n *node, st scanState, quote byte) []Item {
	var out []Item
	for _, v := range n.suggestions() {
		if !hasPrefixFold(v.value, st.partial) {
			continue
		}
		text := literal(n, v.value)
		if quote == '\'' {
			text = "'" + v.value + "'"
		}
		detail := ""
		if isDefault(n, v.value) {
			detail = "default"
		}
		out = append(out, Item{Label: literal(n, v.value), Detail: detail, Documentation: v.meaning,
			Kind: ItemValue, NewText: text})
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
