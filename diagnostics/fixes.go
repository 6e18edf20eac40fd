package diagnostics

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// didYouMean finds the suggestion the loaders put in their messages
// (problem.DidYouMean's "; did you mean `X`?" and permissions.toml's
// "(did you mean `X`?)").
var didYouMean = regexp.MustCompile("did you mean `([^`]+)`\\?")

// removedKey finds the loaders' CW002 for a key the user's release removed
// ("Codewhale 0.10.1 removed [tui] terminal_probe_timeout_ms: …",
// docs/codewhale/releases/0.10.1.md D.9): not a typo to rename, a line to
// delete.
var removedKey = regexp.MustCompile(`^Codewhale [0-9][0-9.]* removed `)

// addLoaderFixes gives the loaders' problems that carry no quick fix one:
// an unknown key renamed to the key it most likely meant, or deleted when the
// user's release removed it (CW002), a project key no config has renamed to
// the project key it most likely meant (CW102), an invalid
// value that is a case or type slip (CW003), a project-overlay line without
// effect removed (CW100). JSON files are left alone.
func addLoaderFixes(_ *config.Snapshot, out map[string]*FileResult) {
	for _, f := range out {
		if f.Kind == config.KindConstitution || len(f.Src) == 0 {
			continue
		}
		doc := f.Doc
		if doc == nil {
			continue
		}
		for i := range f.Problems {
			p := &f.Problems[i]
			if len(p.Fixes) > 0 || (p.Code != problem.UnknownKey && p.Code != problem.ProjectKeyIgnored && p.Code != problem.InvalidValue && p.Code != problem.OverlayDoesNotTighten) {
				continue
			}
			var fix *problem.Fix
			switch p.Code {
			case problem.ProjectKeyIgnored:
				fix = renameKeyFix(doc.Root, *p)
			case problem.UnknownKey:
				if removedKey.MatchString(p.Message) {
					fix = deleteEntryFix(f.Src, doc.Root, *p)
				} else {
					fix = renameKeyFix(doc.Root, *p)
				}
			case problem.InvalidValue:
				fix = valueFix(doc.Root, f.Kind, *p)
			case problem.OverlayDoesNotTighten:
				fix = deleteEntryFix(f.Src, doc.Root, *p)
			}
			if fix != nil {
				p.Fixes = []problem.Fix{*fix}
			}
		}
	}
}

func suggestion(message string) (string, bool) {
	m := didYouMean.FindStringSubmatch(message)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// renameKeyFix renames an unknown key to the loader's suggestion, unless
// the table already has that key (the rename would define it twice).
func renameKeyFix(root *tomldoc.TableValue, p problem.Problem) *problem.Fix {
	want, ok := suggestion(p.Message)
	if !ok {
		return nil
	}
	t, _ := findEntry(root, func(e *tomldoc.Entry) bool { return e.KeySpan == p.Span })
	if t == nil || t.Get(want) != nil {
		return nil
	}
	return &problem.Fix{Title: fmt.Sprintf("Rename to `%s`", want), Edits: []problem.Edit{{Span: p.Span, NewText: want}},
		WhyNotSafe: fmt.Sprintf("`%s` is a guess at the key you meant", want)}
}

// valueFix repairs a string that only misses its type or case: a quoted
// boolean becomes a boolean, a permissions.toml action is case-folded
// (both safe); a misspelt enum string takes the loader's suggestion.
func valueFix(root *tomldoc.TableValue, kind config.Kind, p problem.Problem) *problem.Fix {
	_, e := findEntry(root, func(e *tomldoc.Entry) bool { return e.Value.Span == p.Span })
	if e == nil || e.Value.Kind != tomldoc.String {
		return nil
	}
	folded := ascii.Lower(strings.TrimSpace(e.Value.Str))
	replace := func(title, text string, safe bool) *problem.Fix {
		fix := &problem.Fix{Title: title, Safe: safe, Edits: []problem.Edit{{Span: p.Span, NewText: text}}}
		if !safe {
			fix.WhyNotSafe = fmt.Sprintf("%s is a guess at the value you meant", text)
		}
		return fix
	}
	switch {
	case (folded == "true" || folded == "false") && (strings.Contains(p.Message, "boolean") || strings.Contains(p.Message, "true or false")):
		return replace(fmt.Sprintf("Change to %s (a boolean, unquoted)", folded), folded, true)
	case kind == config.KindPermissions && e.Key == "action":
		if _, ok := execpolicy.ParseAction(folded); ok {
			return replace(fmt.Sprintf("Change to %q", folded), strconv.Quote(folded), true)
		}
		if s := problem.Nearest(folded, execpolicy.ActionNames); s != "" {
			return replace(fmt.Sprintf("Change to %q", s), strconv.Quote(s), false)
		}
	}
	if s, ok := suggestion(p.Message); ok && s != e.Value.Str {
		return replace(fmt.Sprintf("Change to %q", s), strconv.Quote(s), false)
	}
	return nil
}

// deleteEntryFix removes the line of a project-overlay key that has no
// effect. A line holding anything else is left alone.
func deleteEntryFix(src []byte, root *tomldoc.TableValue, p problem.Problem) *problem.Fix {
	_, e := findEntry(root, func(e *tomldoc.Entry) bool { return e.Value.Span == p.Span || e.KeySpan == p.Span })
	if e == nil {
		return nil
	}
	span, ok := wholeLines(src, e.KeySpan.Start, e.Value.Span.End)
	if !ok {
		return nil
	}
	return &problem.Fix{Title: fmt.Sprintf("Remove `%s` (it has no effect)", e.Key), Edits: []problem.Edit{{Span: span}},
		WhyNotSafe: fmt.Sprintf("it deletes your `%s` line, which you may rather change so that it takes effect", e.Key)}
}

// findEntry walks a TOML tree, tables inside arrays included, for the first
// entry ok accepts, and returns it with its table.
func findEntry(t *tomldoc.TableValue, ok func(*tomldoc.Entry) bool) (*tomldoc.TableValue, *tomldoc.Entry) {
	if t == nil {
		return nil, nil
	}
	for _, e := range t.Entries {
		if ok(e) {
			return t, e
		}
		if tt, found := findInValue(e.Value, ok); found != nil {
			return tt, found
		}
	}
	return nil, nil
}

func findInValue(v *tomldoc.Value, ok func(*tomldoc.Entry) bool) (*tomldoc.TableValue, *tomldoc.Entry) {
	switch v.Kind {
	case tomldoc.Table:
		return findEntry(v.Table, ok)
	case tomldoc.Array:
		for _, item := range v.Items {
			if t, e := findInValue(item, ok); e != nil {
				return t, e
			}
		}
	}
	return nil, nil
}

// wholeLines widens [start, end) to the full lines holding it, newline
// included, when the rest of those lines is blank or a comment.
func wholeLines(src []byte, start, end int) (problem.Span, bool) {
	if start < 0 || end > len(src) || start > end {
		return problem.Span{}, false
	}
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	if len(bytes.TrimSpace(src[lineStart:start])) > 0 {
		return problem.Span{}, false
	}
	lineEnd := len(src)
	if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
		lineEnd = end + i + 1
	}
	if rest := bytes.TrimSpace(src[end:lineEnd]); len(rest) > 0 && rest[0] != '#' {
		return problem.Span{}, false
	}
	return problem.Span{Start: lineStart, End: lineEnd}, true
}

// ruleTextSpan is the text deleting a rule removes: a `[[rules]]` table from
// its header line through its last key's line; an inline table with the
// comma that separates it from its neighbour.
func ruleTextSpan(src []byte, r execpolicy.FileRule) (problem.Span, bool) {
	if r.Table.Inline {
		return inlineElementSpan(src, r.Span)
	}
	end := r.Span.End
	for _, e := range r.Table.Entries {
		end = max(end, e.Value.Span.End)
	}
	headerStart := bytes.LastIndexByte(src[:min(r.Span.Start, len(src))], '[')
	headerStart = bytes.LastIndexByte(src[:max(headerStart, 0)], '[') // [[
	if headerStart < 0 {
		return problem.Span{}, false
	}
	span, ok := wholeLines(src, headerStart, end)
	if ok {
		// The blank line that set the table apart goes with it, so the
		// file keeps one blank line between the tables left.
		span.Start = blankLineBefore(src, span.Start)
	}
	return span, ok
}

// blankLineBefore is the start of the blank line just before the line
// starting at lineStart, else lineStart.
func blankLineBefore(src []byte, lineStart int) int {
	if lineStart < 2 || src[lineStart-1] != '\n' {
		return lineStart
	}
	prev := bytes.LastIndexByte(src[:lineStart-1], '\n') + 1
	if len(bytes.TrimSpace(src[prev:lineStart-1])) > 0 {
		return lineStart
	}
	return prev
}

// inlineElementSpan is an array element with the comma after it, or before
// it when it is the last one; only whitespace may sit in between.
func inlineElementSpan(src []byte, el problem.Span) (problem.Span, bool) {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i := el.End
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	if i < len(src) && src[i] == ',' {
		j := i + 1
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		// An element on a line of its own goes with its line: no
		// indentation is left behind on an empty line.
		lineStart := bytes.LastIndexByte(src[:el.Start], '\n') + 1
		if len(bytes.TrimSpace(src[lineStart:el.Start])) == 0 && j < len(src) && src[j] == '\n' {
			return problem.Span{Start: lineStart, End: j + 1}, true
		}
		return problem.Span{Start: el.Start, End: j}, true
	}
	j := el.Start - 1
	for j >= 0 && isSpace(src[j]) {
		j--
	}
	switch {
	case j >= 0 && src[j] == ',':
		return problem.Span{Start: j, End: el.End}, true
	case j >= 0 && src[j] == '[':
		return el, true // the only element
	}
	return problem.Span{}, false
}
