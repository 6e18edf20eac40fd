package diagnostics

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// IgnoreMarker starts a comment that silences codes on the next line.
const IgnoreMarker = "# codewhale-ls: ignore"

// dropIgnored removes problems whose first line is directly below a
// `# codewhale-ls: ignore CODE[, CODE...]` comment naming their code.
func dropIgnored(src []byte, problems []problem.Problem) []problem.Problem {
	if !strings.Contains(string(src), IgnoreMarker) {
		return problems
	}
	lines := problem.NewLines(src)
	text := strings.Split(string(src), "\n")
	kept := problems[:0]
	for _, p := range problems {
		line := lines.LineOf(p.Span.Start)
		if line > 0 && ignores(text[line-1], p.Code) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

func ignores(line string, code problem.Code) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), IgnoreMarker)
	if !ok {
		return false
	}
	for _, c := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if problem.Code(c) == code {
			return true
		}
	}
	return false
}

// IgnoreFix is the "ignore CODE here" quick fix for a problem in src: a
// marker comment on the line above, indented like the line.
func IgnoreFix(src []byte, p problem.Problem) problem.Fix {
	lines := problem.NewLines(src)
	start := lines.Offset(lines.LineOf(p.Span.Start), 0)
	indent := ""
	for i := start; i < len(src) && (src[i] == ' ' || src[i] == '\t'); i++ {
		indent += string(src[i])
	}
	return problem.Fix{
		Title: "Ignore " + string(p.Code) + " here",
		Edits: []problem.Edit{{Span: problem.Span{Start: start, End: start}, NewText: indent + IgnoreMarker + " " + string(p.Code) + "\n"}},
	}
}
