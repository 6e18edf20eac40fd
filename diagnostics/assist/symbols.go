package assist

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// SymbolKind is what a symbol stands for.
type SymbolKind int

const (
	SymbolTable SymbolKind = iota + 1
	SymbolKey
	SymbolRule
	SymbolHook
	SymbolInvariant
)

// Symbol is one entry of a document's outline.
type Symbol struct {
	Name, Detail  string
	Kind          SymbolKind
	Span          problem.Span // the whole entry
	SelectionSpan problem.Span // its name
	Children      []Symbol
}

// Symbols is the outline of a file: one symbol per rule, hook, invariant.
// A TOML file that does not parse still gets an outline of its headers.
func Symbols(kind config.Kind, src []byte) []Symbol {
	name := schemaName(kind)
	if name == "" {
		return nil
	}
	if name == "constitution" {
		return named(invariantSymbols(parseTolerantJSON(src)))
	}
	doc, err := tomldoc.Parse(src)
	switch {
	case err != nil:
		return named(sectionSymbols(name, src))
	case name == "permissions":
		return named(itemSymbols(doc.Src, []string{"rules"}, doc.Root.Get("rules")))
	case name == "hooks":
		return named(itemSymbols(doc.Src, []string{"hooks"}, doc.Root.Get("hooks")))
	}
	// The outline asks the schema only which keys have allowed values,
	// which no release changed: any release's schema will do.
	return named(tableSymbols(doc.Src, rootNode(kind, release.Newest()), nil, doc.Root))
}

// named gives every symbol a name, as LSP requires one (`[""]` is a valid
// TOML header).
func named(symbols []Symbol) []Symbol {
	for i := range symbols {
		if strings.TrimSpace(symbols[i].Name) == "" {
			symbols[i].Name = `""`
		}
		symbols[i].Children = named(symbols[i].Children)
	}
	return symbols
}

// tableSymbols outlines a config.toml table: tables nest, arrays of tables
// become one symbol per entry, other keys are leaves.
func tableSymbols(src []byte, n *node, path []string, t *tomldoc.TableValue) []Symbol {
	var out []Symbol
	for _, e := range t.Entries {
		p := extend(path, e.Key)
		span := union(e.KeySpan, entryExtent(src, e.Value))
		switch {
		case e.Value.Kind == tomldoc.Table:
			out = append(out, Symbol{Name: e.Key, Kind: SymbolTable, Span: span, SelectionSpan: e.KeySpan,
				Children: tableSymbols(src, n, p, e.Value.Table)})
		case e.Value.Kind == tomldoc.Array && slices.ContainsFunc(e.Value.Items, func(v *tomldoc.Value) bool { return v.Kind == tomldoc.Table }):
			out = append(out, itemSymbols(src, p, e)...)
		default:
			out = append(out, Symbol{Name: e.Key, Detail: keyDetail(n.walk(p), e.Value), Kind: SymbolKey, Span: span, SelectionSpan: e.KeySpan})
		}
	}
	return out
}

// keyDetail shows a value only where the schema lists the allowed values:
// never, say, an api_key.
func keyDetail(n *node, v *tomldoc.Value) string {
	if n != nil && len(n.enum()) > 0 && v.Kind == tomldoc.String {
		return v.Raw
	}
	return v.Kind.String()
}

// itemSymbols is one symbol per table of an array of tables at path.
func itemSymbols(src []byte, path []string, e *tomldoc.Entry) []Symbol {
	if e == nil || e.Value.Kind != tomldoc.Array {
		return nil
	}
	var out []Symbol
	for i, item := range e.Value.Items {
		if item.Kind != tomldoc.Table {
			continue
		}
		s := entrySymbol(path, i, tableFields(item.Table))
		s.Span, s.SelectionSpan = entryExtent(src, item), item.Span
		if item.Table.Inline {
			s.SelectionSpan = s.Span
		}
		out = append(out, s)
	}
	return out
}

// entrySymbol names the i-th entry of the array of tables at path.
func entrySymbol(path []string, i int, get fields) Symbol {
	switch strings.Join(path, ".") {
	case "rules":
		r := ruleFromFields(get)
		return Symbol{Name: r.Label(), Detail: ruleDetail(r), Kind: SymbolRule}
	case "hooks", "hooks.hooks":
		name, detail := hookName(get)
		return Symbol{Name: name, Detail: detail, Kind: SymbolHook}
	case "auto_review.allow", "auto_review.block":
		name, detail := autoReviewName(get, path[1], i)
		return Symbol{Name: name, Detail: detail, Kind: SymbolRule}
	}
	return Symbol{Name: fmt.Sprintf("%s[%d]", path[len(path)-1], i), Kind: SymbolTable}
}

// invariantSymbols is one symbol per protected invariant of a
// constitution.json.
func invariantSymbols(root *jsonNode) []Symbol {
	if root == nil {
		return nil
	}
	var out []Symbol
	for _, m := range root.members {
		if m.key != "protected_invariants" || m.value == nil || m.value.kind != '[' {
			continue
		}
		for _, e := range m.value.elems {
			s := Symbol{Kind: SymbolInvariant, Span: e.span, SelectionSpan: e.span, Detail: "advisory"}
			switch e.kind {
			case '"':
				s.Name = e.text
			case '{':
				s.Name, s.SelectionSpan, s.Detail = invariantFacts(e)
			default:
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

func invariantFacts(obj *jsonNode) (text string, selection problem.Span, detail string) {
	selection, action := obj.span, "ask"
	var paths []string
	for _, m := range obj.members {
		if m.value == nil {
			continue
		}
		switch m.key {
		case "text":
			text, selection = m.value.text, m.value.span
		case "action":
			action = m.value.text
		case "paths":
			for _, p := range m.value.elems {
				paths = append(paths, p.text)
			}
		}
	}
	if len(paths) == 0 {
		return text, selection, "advisory"
	}
	return text, selection, action + ": " + strings.Join(paths, ", ")
}
