package diagnostics

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// SourceRoot is the uriBaseId of the files in the repository: SARIF
// consumers (code scanning) resolve them against their own checkout.
const SourceRoot = "%SRCROOT%"

// sarifLevel is SARIF's name of each severity.
var sarifLevel = map[problem.Severity]string{problem.Error: "error", problem.Warning: "warning", problem.Info: "note"}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string    `json:"id"`
	Name                 string    `json:"name"`
	ShortDescription     sarifText `json:"shortDescription"`
	FullDescription      sarifText `json:"fullDescription"`
	Help                 sarifText `json:"help"`
	HelpURI              string    `json:"helpUri"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex *int            `json:"ruleIndex,omitempty"` // nil for a code not in the table
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

// sarifRules is rules[] of the run: every code of the table problem.Codes,
// in its order, each with the words docs/diagnostics.md heads its entry
// with, so a code-scanning service can show any finding's rule.
func sarifRules() []sarifRule {
	rules := make([]sarifRule, 0, len(problem.Codes))
	for _, c := range problem.Codes {
		full := c.Title + "."
		if c.SeverityVaries != "" {
			full += " Severity: " + c.SeverityVaries + "."
		}
		r := sarifRule{ID: string(c.Code), Name: c.Name, HelpURI: DocURL(c.Code),
			ShortDescription: sarifText{Text: c.Title},
			FullDescription:  sarifText{Text: full},
			Help: sarifText{Text: full + " What Codewhale does with it, an example and the fix: " + DocURL(c.Code),
				Markdown: full + " [What Codewhale does with it, an example and the fix](" + DocURL(c.Code) + ")."},
		}
		r.DefaultConfiguration.Level = sarifLevel[c.Severity]
		rules = append(rules, r)
	}
	return rules
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// WriteSARIF prints a SARIF 2.1.0 log with one run: rules[] from the table
// of codes, columns in UTF-16 code units (LSP's), and each file of the
// repository as a URI relative to SourceRoot, which originalUriBaseIds
// says is r.Root here; a file outside the repository (the user's home) has
// its absolute file: URI.
func WriteSARIF(w io.Writer, r Report, toolVersion string) error {
	rules := sarifRules()
	index := map[problem.Code]*int{}
	for i, rule := range rules {
		index[problem.Code(rule.ID)] = &i
	}
	results := []sarifResult{}
	for _, f := range r.Files {
		loc := sarifArtifactLocation{URI: fileURI(f.Path)}
		if rel, ok := r.relative(f.Path); ok {
			loc = sarifArtifactLocation{URI: (&url.URL{Path: rel}).String(), URIBaseID: SourceRoot}
		}
		for _, d := range f.Findings {
			region := sarifRegion{d.Range.Start.Line + 1, d.Range.Start.Character + 1, d.Range.End.Line + 1, d.Range.End.Character + 1}
			results = append(results, sarifResult{RuleID: string(d.Code), RuleIndex: index[d.Code], Level: sarifLevel[d.Severity], Message: sarifText{Text: d.Message},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: loc, Region: region}}}})
		}
	}
	run := map[string]any{
		"tool": map[string]any{"driver": map[string]any{
			"name": "codewhale-ls", "version": toolVersion, "informationUri": "https://github.com/codewhale-ls/codewhale-ls", "rules": rules,
		}},
		"columnKind": "utf16CodeUnits",
		"results":    results,
		// The Codewhale behaviour checked against, and why.
		"properties": map[string]any{"codewhale": r.Against},
	}
	if r.Root != "" {
		run["originalUriBaseIds"] = map[string]any{SourceRoot: map[string]any{
			"uri": strings.TrimSuffix(fileURI(r.Root), "/") + "/", "description": map[string]string{"text": "the repository checked"},
		}}
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs":    []any{run},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
