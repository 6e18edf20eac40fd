// Package tomldoc parses a TOML file into a tree of values that remember
// where they were written. BurntSushi/toml decides whether the text is valid
// TOML (it is the parser the design names, and it alone reports duplicate
// keys); go-toml/v2's unstable parser supplies the byte ranges, which
// BurntSushi does not expose (docs/codewhale/deps.md §2). BurntSushi is slow, so it runs
// only when the tree builder has seen something it might reject, to word
// the error exactly as it would.
package tomldoc

import (
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Kind is the TOML type of a value.
type Kind int

const (
	String Kind = iota + 1
	Integer
	Float
	Bool
	Datetime
	Array
	Table
)

func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Integer:
		return "integer"
	case Float:
		return "float"
	case Bool:
		return "boolean"
	case Datetime:
		return "datetime"
	case Array:
		return "array"
	case Table:
		return "table"
	}
	return "invalid"
}

// Value is one TOML value with the span of its text. For a table opened by a
// header, Span is the header's key; for an array of tables, each item's Span
// is its own header.
type Value struct {
	Kind  Kind
	Str   string // String, and the raw text of a Datetime
	Int   int64
	Float float64
	Bool  bool
	Items []*Value
	Table *TableValue
	Span  problem.Span
	// Raw is the value's source text for scalars (quotes included).
	Raw string
}

// Entry is a key of a table and its value.
type Entry struct {
	Key     string
	KeySpan problem.Span
	Value   *Value
}

// TableValue is a table in document order.
type TableValue struct {
	Entries []*Entry
	// Inline marks `{ ... }` tables; ArrayElement marks `[[x]]` items.
	Inline       bool
	ArrayElement bool
	index        map[string]*Entry
	// origin and section record how the table came to exist, which decides
	// what may still extend it (see definedness.go).
	origin  origin
	section int
}

// Get returns the entry of key, or nil.
func (t *TableValue) Get(key string) *Entry {
	if t == nil {
		return nil
	}
	if t.index == nil {
		for _, e := range t.Entries {
			if e.Key == key {
				return e
			}
		}
		return nil
	}
	return t.index[key]
}

// indexFrom is the entry count from which a table keeps a map: most tables
// (one per [[rules]] entry) hold a handful of keys, where a scan is cheaper
// than building a map.
const indexFrom = 8

func (t *TableValue) put(e *Entry) {
	if old := t.Get(e.Key); old != nil {
		*old = *e
		return
	}
	t.Entries = append(t.Entries, e)
	switch {
	case t.index != nil:
		t.index[e.Key] = e
	case len(t.Entries) > indexFrom:
		t.index = make(map[string]*Entry, 2*len(t.Entries))
		for _, entry := range t.Entries {
			t.index[entry.Key] = entry
		}
	}
}

// Doc is a parsed TOML file.
type Doc struct {
	Src  []byte
	Root *TableValue
}

// SyntaxError is why a text is not TOML, at the exact bytes.
type SyntaxError struct {
	Message string
	Span    problem.Span
	// DuplicateKey is the last component of a key defined twice, when that
	// is the error (serde reports it as "duplicate field").
	DuplicateKey string
}

func (e *SyntaxError) Error() string { return e.Message }

// String returns the string value at key, if it is one.
func (t *TableValue) String(key string) (string, *Entry, bool) {
	e := t.Get(key)
	if e == nil || e.Value.Kind != String {
		return "", e, false
	}
	return e.Value.Str, e, true
}

// Bool returns the boolean value at key, if it is one.
func (t *TableValue) BoolAt(key string) (bool, *Entry, bool) {
	e := t.Get(key)
	if e == nil || e.Value.Kind != Bool {
		return false, e, false
	}
	return e.Value.Bool, e, true
}

// Sub returns the table value at key, if it is one.
func (t *TableValue) Sub(key string) (*TableValue, *Entry) {
	e := t.Get(key)
	if e == nil || e.Value.Kind != Table {
		return nil, e
	}
	return e.Value.Table, e
}
