package assist

import (
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

func union(a, b problem.Span) problem.Span {
	return problem.Span{Start: min(a.Start, b.Start), End: max(a.End, b.End)}
}

// entryExtent is all the text of a value: for a table opened by a header,
// from the header's brackets to its last key's value.
func entryExtent(src []byte, v *tomldoc.Value) problem.Span {
	span := v.Span
	if v.Kind == tomldoc.Table && !v.Table.Inline {
		for span.Start > 0 && src[span.Start-1] == '[' {
			span.Start--
		}
		for span.End < len(src) && src[span.End] == ']' {
			span.End++
		}
	}
	switch v.Kind {
	case tomldoc.Table:
		for _, e := range v.Table.Entries {
			span = union(span, union(e.KeySpan, entryExtent(src, e.Value)))
		}
	case tomldoc.Array:
		for _, item := range v.Items {
			span = union(span, entryExtent(src, item))
		}
	}
	return span
}
