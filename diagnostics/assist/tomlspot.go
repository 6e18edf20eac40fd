package assist

import (
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// tomlSpot finds the key or value at offset: from the parsed tree when the
// text is TOML (exact, across lines; doc is nil when it is not), else from
// the line scanner.
func tomlSpot(doc *tomldoc.Doc, src []byte, offset int) *spot {
	if doc != nil {
		if sp := tableSpot(doc.Root, nil, offset); sp != nil {
			return sp
		}
	}
	// Also the way to a repeated header's first components, which the tree
	// records only where they were first written.
	sp, _ := scanTOML(src, offset, false)
	return sp
}

func tableSpot(t *tomldoc.TableValue, path []string, offset int) *spot {
	for _, e := range t.Entries {
		p := extend(path, e.Key)
		if within(e.KeySpan, offset) {
			return &spot{path: p, span: e.KeySpan}
		}
		if sp := valueSpot(e.Value, p, offset); sp != nil {
			return sp
		}
	}
	return nil
}

func valueSpot(v *tomldoc.Value, path []string, offset int) *spot {
	switch v.Kind {
	case tomldoc.Table:
		return tableSpot(v.Table, path, offset)
	case tomldoc.Array:
		for _, item := range v.Items {
			if sp := valueSpot(item, path, offset); sp != nil {
				return sp
			}
		}
		return nil
	case tomldoc.String:
		if within(v.Span, offset) {
			return &spot{path: path, onValue: true, value: v.Str, span: v.Span}
		}
	default:
		if within(v.Span, offset) {
			return &spot{path: path, onValue: true, value: v.Raw, span: v.Span}
		}
	}
	return nil
}
