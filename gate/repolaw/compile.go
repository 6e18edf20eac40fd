package repolaw

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/globset"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// maxFileSize is the size above which Codewhale ignores the file.
const maxFileSize = 100 * 1024

func tooLarge(size int64) problem.Problem {
	return ignoredProblem(problem.Span{}, fmt.Sprintf("the file is %d bytes, over the 100 KiB limit", size))
}

// Parse compiles the text of a constitution.json. When the text is empty,
// too large, not JSON or not of the schema, the Law is empty (Codewhale
// enforces nothing then) and the problems say why. Otherwise the problems
// are advisories about invariants that protect less than they seem to.
func Parse(data []byte) (Law, []problem.Problem) {
	switch {
	case len(data) == 0:
		return Law{}, []problem.Problem{ignoredProblem(problem.Span{}, "the file is empty")}
	case len(data) > maxFileSize:
		return Law{}, []problem.Problem{tooLarge(int64(len(data)))}
	}
	root, err := parseJSON(data)
	if err != nil {
		return Law{}, []problem.Problem{{
			Code:     problem.SyntaxError,
			Severity: problem.Error,
			Span:     problem.Span{Start: err.offset, End: err.offset + runeLen(data[err.offset:])},
			Message:  fmt.Sprintf("JSON syntax error: %s. Codewhale ignores this constitution.json: zero paths are protected", err.msg),
		}}
	}
	invariants, problems := decodeConstitution(root)
	if len(problems) > 0 {
		return Law{}, problems
	}
	return compile(invariants)
}

// compile turns the invariants into rules (docs/codewhale/pipeline.md §7.1): blank text
// skips the entry, a bare string is advisory only, each path is trimmed, blank and invalid
// globs are dropped, and an entry left without globs is advisory only.
func compile(invariants []invariant) (Law, []problem.Problem) {
	var law Law
	var problems []problem.Problem
	for _, inv := range invariants {
		text := strings.TrimSpace(inv.text.text)
		if text == "" {
			continue
		}
		if inv.prose {
			problems = append(problems, advisoryOnly(inv, text))
			continue
		}
		rule := Rule{Text: text, Action: inv.action, Span: inv.span}
		for _, p := range inv.paths {
			pattern := strings.TrimSpace(p.text)
			if pattern == "" {
				continue
			}
			g, err := globset.Compile(pattern)
			if err != nil {
				problems = append(problems, problem.Problem{
					Code:     problem.ConstitutionIgnored,
					Severity: problem.Warning,
					Span:     p.span,
					Message:  fmt.Sprintf("Codewhale silently drops this glob (%v): it protects nothing", err),
				})
				continue
			}
			if fixed, ok := unanchored(pattern); ok {
				problems = append(problems, anchoredGlob(p.span, pattern, fixed))
			}
			rule.Patterns = append(rule.Patterns, pattern)
			rule.globs = append(rule.globs, g)
		}
		if len(rule.globs) == 0 {
			problems = append(problems, advisoryOnly(inv, text))
			continue
		}
		law.Rules = append(law.Rules, rule)
	}
	return law, problems
}

func advisoryOnly(inv invariant, text string) problem.Problem {
	span, why := inv.pathsSpan, "has no valid paths"
	switch {
	case inv.prose:
		span, why = inv.text.span, "is a plain string, not an object with paths"
	case span == (problem.Span{}):
		span, why = inv.text.span, "has no paths"
	}
	return problem.Problem{
		Code:     problem.InvariantAdvisory,
		Severity: problem.Info,
		Span:     span,
		Message:  fmt.Sprintf("Invariant %q %s: Codewhale treats it as advice only and protects no file with it", text, why),
	}
}

// unanchored is pattern without the leading "/" and "./" that keep it from
// ever matching: Codewhale matches globs against write targets made
// relative to the workspace, with "." components dropped (§7.2), so no
// target starts with either. ok is false for a pattern that has neither.
func unanchored(pattern string) (string, bool) {
	fixed := pattern
	for {
		switch {
		case strings.HasPrefix(fixed, "/"):
			fixed = fixed[1:]
		case strings.HasPrefix(fixed, "./"):
			fixed = fixed[2:]
		default:
			return fixed, fixed != pattern
		}
	}
}

func anchoredGlob(span problem.Span, pattern, fixed string) problem.Problem {
	quoted, _ := json.Marshal(fixed)
	return problem.Problem{
		Code:     problem.ConstitutionIgnored,
		Severity: problem.Warning,
		Span:     span,
		Message: fmt.Sprintf("Codewhale matches this glob against paths relative to the workspace, which never start with %q: %q protects nothing (%q would)",
			pattern[:len(pattern)-len(fixed)], pattern, fixed),
		Fixes: []problem.Fix{{Title: fmt.Sprintf("Change to %q", fixed), Edits: []problem.Edit{{Span: span, NewText: string(quoted)}}}},
	}
}

// runeLen is the length of the character data starts with (1 for a byte
// that starts none, 0 at the end), so an error span never ends inside a
// character (a BOM is three bytes).
func runeLen(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	_, n := utf8.DecodeRune(data)
	return n
}
