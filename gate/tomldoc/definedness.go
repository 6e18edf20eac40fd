package tomldoc

// origin is how a table came to exist. TOML lets a table be extended only
// in the ways its origin allows; anything else is a semantic error the
// unstable parser does not see.
type origin int

const (
	// headerImplicit tables are intermediate parts of a header's key: one
	// later header may still define them.
	headerImplicit origin = iota
	// headerDefined tables were opened by their own [header] or [[header]].
	headerDefined
	// dotted tables were created by dotted keys; only later dotted keys of
	// the same section (the key/values under one header, or one inline
	// table) may extend them.
	dotted
)

// IsArrayOfTables tells an array built by [[headers]] from a static array
// (`x = [...]`), which nothing may extend.
func (v *Value) IsArrayOfTables() bool {
	return v.Kind == Array && len(v.Items) > 0 && v.Items[0].Kind == Table && v.Items[0].Table.ArrayElement
}

// headerPath reports whether a header may descend through an existing
// intermediate value.
func headerPath(v *Value) bool {
	if v.Kind == Table {
		return !v.Table.Inline
	}
	return v.IsArrayOfTables()
}

// headerRedefines reports whether [header] on an existing value is an
// error: only a table implied by an earlier header's path may be defined.
func headerRedefines(v *Value) bool {
	return v.Kind != Table || v.Table.Inline || v.Table.origin != headerImplicit
}

// dottedPath reports whether a dotted key of section may descend through an
// existing intermediate value.
func dottedPath(v *Value, section int) bool {
	return v.Kind == Table && !v.Table.Inline && v.Table.origin == dotted && v.Table.section == section
}
