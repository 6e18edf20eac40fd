// Package diagnostics turns what the loaders and the gate find in
// Codewhale's policy files into findings with exact positions, and renders
// them for the command line (text, JSON, SARIF 2.1.0, GitHub annotations).
package diagnostics

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// DocsURL is where each code is explained.
const DocsURL = "https://github.com/codewhale-ls/codewhale-ls/blob/main/docs/diagnostics.md"

// DocURL is the entry of one code in DocsURL.
func DocURL(code problem.Code) string { return DocsURL + "#" + strings.ToLower(string(code)) }

// Position is an LSP position: 0-based line, UTF-16 character.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Finding is one problem placed in its file.
type Finding struct {
	Code     problem.Code     `json:"code"`
	Severity problem.Severity `json:"-"`
	Message  string           `json:"message"`
	Range    Range            `json:"range"`
}

// FileReport is the findings of one file.
type FileReport struct {
	Path     string    `json:"path"`
	Findings []Finding `json:"diagnostics"`
}

// Place converts a file's problems to findings with LSP positions, sorted
// by position.
func Place(path string, src []byte, problems []problem.Problem) FileReport {
	lines := problem.NewLines(src)
	r := FileReport{Path: path, Findings: []Finding{}}
	for _, p := range problems {
		sl, sc := lines.UTF16(p.Span.Start)
		el, ec := lines.UTF16(max(p.Span.End, p.Span.Start))
		r.Findings = append(r.Findings, Finding{Code: p.Code, Severity: p.Severity, Message: p.Message,
			Range: Range{Start: Position{sl, sc}, End: Position{el, ec}}})
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i].Range.Start, r.Findings[j].Range.Start
		return a.Line < b.Line || (a.Line == b.Line && a.Character < b.Character)
	})
	return r
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Summarize counts every finding.
func Summarize(reports []FileReport) Summary {
	var s Summary
	for _, r := range reports {
		for _, f := range r.Findings {
			switch f.Severity {
			case problem.Error:
				s.Errors++
			case problem.Warning:
				s.Warnings++
			default:
				s.Infos++
			}
		}
	}
	return s
}

// WriteText prints a first line naming the behaviour checked against, then
// `path:line:col: severity CODE message`, 1-based.
func WriteText(w io.Writer, reports []FileReport, against release.Choice) {
	fmt.Fprintf(w, "checking against %s\n", against.Describe())
	for _, r := range reports {
		for _, f := range r.Findings {
			fmt.Fprintf(w, "%s:%d:%d: %s %s %s\n", r.Path, f.Range.Start.Line+1, f.Range.Start.Character+1, f.Severity, f.Code, f.Message)
		}
	}
}

type jsonFinding struct {
	Finding
	Severity string `json:"severity"`
}

// WriteJSON prints the contract's JSON report.
func WriteJSON(w io.Writer, reports []FileReport, against release.Choice) error {
	type file struct {
		Path        string        `json:"path"`
		Diagnostics []jsonFinding `json:"diagnostics"`
	}
	out := struct {
		Files     []file         `json:"files"`
		Summary   Summary        `json:"summary"`
		Codewhale release.Choice `json:"codewhale"`
	}{Files: []file{}, Summary: Summarize(reports), Codewhale: against}
	for _, r := range reports {
		f := file{Path: r.Path, Diagnostics: []jsonFinding{}}
		for _, d := range r.Findings {
			f.Diagnostics = append(f.Diagnostics, jsonFinding{Finding: d, Severity: d.Severity.String()})
		}
		out.Files = append(out.Files, f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteGitHub prints GitHub Actions workflow annotations, the first a
// notice naming the behaviour checked against.
func WriteGitHub(w io.Writer, reports []FileReport, against release.Choice) {
	fmt.Fprintf(w, "::notice title=codewhale-ls::%s\n", escapeData("checking against "+against.Describe()))
	level := map[problem.Severity]string{problem.Error: "error", problem.Warning: "warning", problem.Info: "notice"}
	for _, r := range reports {
		for _, f := range r.Findings {
			fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n", level[f.Severity], escapeProperty(r.Path),
				f.Range.Start.Line+1, f.Range.Start.Character+1, f.Range.End.Line+1, f.Range.End.Character+1, f.Code, escapeData(f.Message))
		}
	}
}

// GitHub's workflow-command escaping: of the message, and further of a
// property value.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
