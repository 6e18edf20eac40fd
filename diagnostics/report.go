// Package diagnostics turns what the loaders and the gate find in
// Codewhale's policy files into findings with exact positions, and renders
// them for the command line (text, JSON, SARIF 2.1.0, GitHub annotations).
package diagnostics

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
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

// Report is one check run as every format prints it.
type Report struct {
	// Files are the files checked, each with its findings (none when
	// clean), so a clean run still says what it checked.
	Files []FileReport
	// Against is the Codewhale behaviour checked against.
	Against release.Choice
	// Root is the repository the files are reported relative to where
	// they lie in it (SARIF's SourceRoot, GitHub's annotation paths);
	// RepositoryOf the workspace.
	Root string
}

// RepositoryOf is the repository a workspace is checked as: its git root,
// else the workspace itself.
func RepositoryOf(workspace string) string {
	if root := config.GitRoot(workspace); root != "" {
		return root
	}
	return workspace
}

// relative is path relative to the report's Root (relativeTo).
func (r Report) relative(path string) (string, bool) { return relativeTo(r.Root, path) }

// relativeTo is path relative to root, with forward slashes; false for a
// path outside root (the user's home) or no root.
func relativeTo(root, path string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
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

// WriteText prints a first line naming the behaviour checked against,
// then `path:line:col: severity CODE message`, 1-based, then one line
// counting the files checked and the findings by severity.
func WriteText(w io.Writer, r Report) {
	fmt.Fprintf(w, "checking against %s\n", r.Against.Describe())
	for _, f := range r.Files {
		for _, d := range f.Findings {
			fmt.Fprintf(w, "%s:%d:%d: %s %s %s\n", f.Path, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Severity, d.Code, d.Message)
		}
	}
	s := Summarize(r.Files)
	fmt.Fprintf(w, "%s checked: %s, %s, %s\n", plural(len(r.Files), "file"), plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

type jsonFinding struct {
	Finding
	Severity string `json:"severity"`
}

// WriteJSON prints the contract's JSON report.
func WriteJSON(w io.Writer, r Report) error {
	type file struct {
		Path        string        `json:"path"`
		Diagnostics []jsonFinding `json:"diagnostics"`
	}
	out := struct {
		Files     []file         `json:"files"`
		Summary   Summary        `json:"summary"`
		Codewhale release.Choice `json:"codewhale"`
	}{Files: []file{}, Summary: Summarize(r.Files), Codewhale: r.Against}
	for _, fr := range r.Files {
		f := file{Path: fr.Path, Diagnostics: []jsonFinding{}}
		for _, d := range fr.Findings {
			f.Diagnostics = append(f.Diagnostics, jsonFinding{Finding: d, Severity: d.Severity.String()})
		}
		out.Files = append(out.Files, f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteGitHub prints GitHub Actions workflow annotations, the first a
// notice naming the behaviour checked against; files in the repository
// are named relative to it, as GitHub places annotations on a pull
// request's files.
func WriteGitHub(w io.Writer, r Report) {
	fmt.Fprintf(w, "::notice title=codewhale-ls::%s\n", escapeData("checking against "+r.Against.Describe()))
	level := map[problem.Severity]string{problem.Error: "error", problem.Warning: "warning", problem.Info: "notice"}
	for _, f := range r.Files {
		path, ok := r.relative(f.Path)
		if !ok {
			path = f.Path
		}
		for _, d := range f.Findings {
			fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n", level[d.Severity], escapeProperty(path),
				d.Range.Start.Line+1, d.Range.Start.Character+1, d.Range.End.Line+1, d.Range.End.Character+1, d.Code, escapeData(d.Message))
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
