// Package assist answers an editor's questions about one policy file:
// hover, completion and document symbols, from the files' JSON Schemas and
// the same loaders the gate uses.
package assist

import (
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Hover describes what is at offset in a file of the given kind: a key's
// meaning, allowed values and default; on a [[rules]] entry, what it
// matches, whether it is promoted, and what shadows it. snap is the
// snapshot the file was linted in (for cross-file facts); it may be nil.
func Hover(kind config.Kind, src []byte, offset int, snap *config.Snapshot) (markdown string, span problem.Span, ok bool) {
	return "", problem.Span{}, false
}

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
func Symbols(kind config.Kind, src []byte) []Symbol { return nil }

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

// Complete offers the keys and enum values valid at offset.
func Complete(kind config.Kind, src []byte, offset int) []Item { return nil }
