package problem

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docsSection is what docs/diagnostics.md says under one "## CWxxx" heading.
type docsSection struct {
	code             Code
	title, severity  string
	perRelease       string // the **Per release** notes, "" when there are none
	firstLineProblem string
}

var (
	docsHeading   = regexp.MustCompile(`(?m)^## (CW[0-9]{3})$`)
	docsFirstLine = regexp.MustCompile(`^\*\*(.+)\.\*\* File: .+?\. Severity: (.+?)\.(?: |$)`)
)

// readDocsSections splits docs/diagnostics.md at its code headings, in order.
func readDocsSections(t *testing.T) []docsSection {
	t.Helper()
	data, err := os.ReadFile("../../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	// The section after the last code runs to the next heading of any kind.
	bounds := docsHeading.FindAllStringSubmatchIndex(text, -1)
	var out []docsSection
	for i, b := range bounds {
		end := len(text)
		if i+1 < len(bounds) {
			end = bounds[i+1][0]
		} else if j := strings.Index(text[b[1]:], "\n## "); j >= 0 {
			end = b[1] + j
		}
		body := strings.TrimSpace(text[b[1]:end])
		s := docsSection{code: Code(text[b[2]:b[3]])}
		first, _, _ := strings.Cut(body, "\n")
		if m := docsFirstLine.FindStringSubmatch(first); m != nil {
			s.title, s.severity = m[1], m[2]
		} else {
			s.firstLineProblem = first
		}
		if _, notes, ok := strings.Cut(body, "**Per release"); ok {
			s.perRelease = notes
		}
		out = append(out, s)
	}
	return out
}

// TestCodesMatchDocs holds the table to docs/diagnostics.md: the same codes
// in the same order, each with the docs' title and severity, and release
// notes exactly where the docs have **Per release** notes, naming the
// releases the docs name there.
func TestCodesMatchDocs(t *testing.T) {
	sections := readDocsSections(t)
	var docCodes, tableCodes []Code
	for _, s := range sections {
		docCodes = append(docCodes, s.code)
	}
	for _, info := range Codes {
		tableCodes = append(tableCodes, info.Code)
	}
	if !slices.Equal(docCodes, tableCodes) {
		t.Fatalf("docs/diagnostics.md headings %v\nCodes table %v", docCodes, tableCodes)
	}
	for i, s := range sections {
		info := Codes[i]
		if s.firstLineProblem != "" {
			t.Errorf("## %s: first line is not **Title.** File: ... Severity: ...: %q", s.code, s.firstLineProblem)
			continue
		}
		if info.Title != s.title {
			t.Errorf("%s title %q, docs %q", info.Code, info.Title, s.title)
		}
		wantSeverity := info.Severity.String()
		if info.SeverityVaries != "" {
			wantSeverity = info.SeverityVaries
			if !strings.HasPrefix(info.SeverityVaries, info.Severity.String()) {
				t.Errorf("%s: Severity %s is not the first one SeverityVaries names (%q)", info.Code, info.Severity, info.SeverityVaries)
			}
		}
		if wantSeverity != s.severity {
			t.Errorf("%s severity %q, docs %q", info.Code, wantSeverity, s.severity)
		}
		if (len(info.PerRelease) > 0) != (s.perRelease != "") {
			t.Errorf("%s: %d release notes in the table; docs **Per release** notes: %t", info.Code, len(info.PerRelease), s.perRelease != "")
		}
		for release := range info.PerRelease {
			if !strings.Contains(s.perRelease, release) {
				t.Errorf("%s: the table has a note for %s, the docs' **Per release** notes do not name it", info.Code, release)
			}
		}
	}
}

var codeShape = regexp.MustCompile(`^CW[0-9]{3}$`)

func TestCodeInfo(t *testing.T) {
	seen := map[Code]bool{}
	for _, info := range Codes {
		if !codeShape.MatchString(string(info.Code)) || seen[info.Code] {
			t.Errorf("%q: not CW and three digits, or twice in the table", info.Code)
		}
		seen[info.Code] = true
		if got, ok := info.Code.Info(); !ok || got.Code != info.Code {
			t.Errorf("%s.Info() = %v, %t", info.Code, got.Code, ok)
		}
	}
	if _, ok := Code("CW999").Info(); ok {
		t.Error("CW999 has a row")
	}
}

// TestCodeNames: each row's Name is the name of its code's constant, so
// the SARIF rule name a code-scanning service shows is the one the source
// uses.
func TestCodeNames(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	constants := map[Code]string{}
	ast.Inspect(file, func(n ast.Node) bool {
		if spec, ok := n.(*ast.ValueSpec); ok && len(spec.Names) == 1 && len(spec.Values) == 1 {
			if lit, ok := spec.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				constants[Code(strings.Trim(lit.Value, `"`))] = spec.Names[0].Name
			}
		}
		return true
	})
	for _, info := range Codes {
		if info.Name == "" || info.Name != constants[info.Code] {
			t.Errorf("%s: Name %q, its constant is %q", info.Code, info.Name, constants[info.Code])
		}
	}
}
