package approvals

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// AppendRules appends the rules an "always" answer saves to the
// permissions.toml at path, creating it (mode 0600, parent dirs 0700) if
// missing. Under an exclusive lock on path+".lock" (policyfile.LockExclusive:
// the lock file is created 0600 and left in place) it reads the file, skips
// every rule identical to one already there (execpolicy.SameRecord), and
// replaces the file atomically with mode 0600 (grantRewriter: temp file in
// the same directory, fsync, rename or exchange, fsync of the directory).
// Every byte of the existing file is kept; the new rules go at the end as
// `[[rules]]` tables, or, when the file writes `rules = [ ... ]`, as inline
// tables before its closing bracket. The new content must load and hold
// every requested rule, or nothing is written; an existing file that does
// not load is never rewritten. When nothing is new the file is not touched
// at all. A permissions.toml or lock file that is a symlink or not a
// regular file is refused (Codewhale refuses approval saves to a symlinked
// file). Editors save without the lock: a save made meanwhile, even one
// landing at the last moment, is seen, kept, and the rules are appended to
// it (policyfile.Rewriter.Rewrite): the user's bytes are never lost.
func AppendRules(path string, rules []execpolicy.Rule) (added int, err error) {
	if len(rules) == 0 {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, grantError(path, "cannot create its directory", err)
	}
	unlock, err := policyfile.LockExclusive(path + ".lock")
	if err != nil {
		return 0, grantError(path, "cannot lock "+path+".lock", err)
	}
	defer unlock()
	_, err = grantRewriter.Rewrite(path, func(old []byte, _ bool) ([]byte, error) {
		content, n, err := appendedContent(old, rules)
		if err != nil {
			return nil, fmt.Errorf("cannot save rules to %s: %w", path, err)
		}
		added = n
		if n == 0 {
			return old, nil
		}
		return content, nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// grantRewriter writes permissions.toml as Codewhale's own approval save
// does: mode 0600 whatever mode the file had.
var grantRewriter = policyfile.Rewriter{Mode: 0o600, Fail: grantError}

func grantError(path, what string, err error) error {
	return fmt.Errorf("cannot save rules to %s: %s: %w", path, what, err)
}

// appendedContent is src with the rules it lacks added in its own style,
// and how many were added; (nil, 0, nil) when none is new.
func appendedContent(src []byte, rules []execpolicy.Rule) ([]byte, int, error) {
	file, problems := execpolicy.ParseFile(src)
	if err := loadError(file, problems); err != nil {
		return nil, 0, fmt.Errorf("it does not load, so it is left as it is: %w", err)
	}
	existing := file.RuleValues()
	fresh := missingRules(existing, rules)
	if len(fresh) == 0 {
		return nil, 0, nil
	}
	content, err := withRules(file, fresh)
	if err != nil {
		return nil, 0, err
	}
	if err := verifyAppended(content, len(existing)+len(fresh), rules); err != nil {
		return nil, 0, fmt.Errorf("the new content would be wrong, so nothing was written: %w", err)
	}
	return content, len(fresh), nil
}

// loadError is why Codewhale would not load the file, or nil.
func loadError(file *execpolicy.File, problems []problem.Problem) error {
	for _, p := range problems {
		if p.Severity == problem.Error {
			return fmt.Errorf("%s at byte %d: %s", p.Code, p.Span.Start, p.Message)
		}
	}
	if !file.Accepted {
		return errors.New("not accepted by the loader")
	}
	return nil
}

// missingRules are the wanted rules not already recorded, each once.
func missingRules(existing, wanted []execpolicy.Rule) []execpolicy.Rule {
	var fresh []execpolicy.Rule
	for _, r := range wanted {
		if !containsRecord(existing, r) && !containsRecord(fresh, r) {
			fresh = append(fresh, r)
		}
	}
	return fresh
}

func containsRecord(rules []execpolicy.Rule, r execpolicy.Rule) bool {
	for _, have := range rules {
		if execpolicy.SameRecord(have, r) {
			return true
		}
	}
	return false
}

// verifyAppended re-loads the content to be written: it must load, hold
// exactly count rules, and every requested one.
func verifyAppended(content []byte, count int, requested []execpolicy.Rule) error {
	file, problems := execpolicy.ParseFile(content)
	if err := loadError(file, problems); err != nil {
		return err
	}
	got := file.RuleValues()
	if len(got) != count {
		return fmt.Errorf("it would hold %d rules, want %d", len(got), count)
	}
	for _, r := range requested {
		if !containsRecord(got, r) {
			return fmt.Errorf("it would not hold the rule %s", r.Label())
		}
	}
	return nil
}

// withRules adds fresh to an accepted file in the style it already uses.
func withRules(file *execpolicy.File, fresh []execpolicy.Rule) ([]byte, error) {
	if file.Doc != nil {
		if e := file.Doc.Root.Get("rules"); e != nil && e.Value.Kind == tomldoc.Array && !e.Value.IsArrayOfTables() {
			return insertInline(file.Src, e.Value, fresh)
		}
	}
	return appendTables(file.Src, fresh), nil
}

// appendTables adds the `[[rules]]` tables the approval card previews,
// after one blank line.
func appendTables(src []byte, fresh []execpolicy.Rule) []byte {
	var b bytes.Buffer
	b.Write(src)
	b.WriteString(policyfile.SeparatorAfter(src))
	b.WriteString((&gate.Prompt{Always: fresh}).AlwaysTOML())
	return b.Bytes()
}

// insertion is text to put before the byte at offset.
type insertion struct {
	offset int
	text   string
}

// insertInline adds fresh as inline tables to the `rules = [...]` array:
// one per line when the closing bracket has a line of its own, else on the
// bracket's line. A trailing comma is kept as the file's convention.
func insertInline(src []byte, array *tomldoc.Value, fresh []execpolicy.Rule) ([]byte, error) {
	closeAt := array.Span.End - 1
	if closeAt <= array.Span.Start || closeAt >= len(src) || src[closeAt] != ']' {
		return nil, errors.New("cannot find the closing bracket of `rules = [...]`")
	}
	tables := make([]string, len(fresh))
	for i, r := range fresh {
		tables[i] = execpolicy.FormatInlineRule(r)
	}
	var edits []insertion
	items := array.Items
	trailingComma, after := false, array.Span.Start+1
	if len(items) > 0 {
		lastEnd := items[len(items)-1].Span.End
		var comma int
		comma, trailingComma = commaAfter(src, lastEnd, closeAt)
		after = lastEnd
		if trailingComma {
			after = comma + 1
		} else {
			edits = append(edits, insertion{lastEnd, ","})
		}
	}
	if lineBreak, ok := lineBreakBefore(src, array.Span.Start, closeAt); ok {
		indent := "  "
		if len(items) > 0 {
			indent = problem.NewLines(src).Indent(items[len(items)-1].Span.Start)
		}
		edits = append(edits, insertion{lineBreak, "\n" + indent + strings.Join(tables, ",\n"+indent) + commaIf(trailingComma)})
	} else {
		lead := ""
		if len(items) > 0 {
			lead = " "
		}
		edits = append(edits, insertion{after, lead + strings.Join(tables, ", ") + commaIf(trailingComma)})
	}
	return applyInsertions(src, edits), nil
}

func commaIf(yes bool) string {
	if yes {
		return ","
	}
	return ""
}

// commaAfter finds the comma that follows an array item before the closing
// bracket, across blanks, line breaks and comments.
func commaAfter(src []byte, from, closeAt int) (int, bool) {
	for i := from; i < closeAt; i++ {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
		case '#':
			for i < closeAt && src[i] != '\n' {
				i++
			}
		case ',':
			return i, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// lineBreakBefore reports whether only blanks precede the closing bracket
// on its line, and where that line's break starts ("\r\n" or "\n").
func lineBreakBefore(src []byte, openAt, closeAt int) (int, bool) {
	i := closeAt - 1
	for i > openAt && (src[i] == ' ' || src[i] == '\t') {
		i--
	}
	if i <= openAt || src[i] != '\n' {
		return 0, false
	}
	if src[i-1] == '\r' {
		i--
	}
	return i, true
}

// applyInsertions applies edits given in ascending offset order.
func applyInsertions(src []byte, edits []insertion) []byte {
	var b bytes.Buffer
	done := 0
	for _, e := range edits {
		b.Write(src[done:e.offset])
		b.WriteString(e.text)
		done = e.offset
	}
	b.Write(src[done:])
	return b.Bytes()
}
