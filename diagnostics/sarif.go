package diagnostics

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"sort"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// WriteSARIF prints a SARIF 2.1.0 log with one run, one rule per code seen.
func WriteSARIF(w io.Writer, reports []FileReport, toolVersion string, against release.Choice) error {
	level := map[problem.Severity]string{problem.Error: "error", problem.Warning: "warning", problem.Info: "note"}
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine"`
		EndColumn   int `json:"endColumn"`
	}
	type location struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region region `json:"region"`
		} `json:"physicalLocation"`
	}
	type result struct {
		RuleID    string            `json:"ruleId"`
		Level     string            `json:"level"`
		Message   map[string]string `json:"message"`
		Locations []location        `json:"locations"`
	}
	type rule struct {
		ID      string `json:"id"`
		HelpURI string `json:"helpUri"`
	}
	codes := map[problem.Code]bool{}
	results := []result{}
	for _, r := range reports {
		for _, f := range r.Findings {
			codes[f.Code] = true
			var loc location
			loc.PhysicalLocation.ArtifactLocation.URI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(r.Path)}).String()
			loc.PhysicalLocation.Region = region{f.Range.Start.Line + 1, f.Range.Start.Character + 1, f.Range.End.Line + 1, f.Range.End.Character + 1}
			results = append(results, result{RuleID: string(f.Code), Level: level[f.Severity], Message: map[string]string{"text": f.Message}, Locations: []location{loc}})
		}
	}
	rules := []rule{}
	for c := range codes {
		rules = append(rules, rule{ID: string(c), HelpURI: DocURL(c)})
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool": map[string]any{"driver": map[string]any{
				"name": "codewhale-ls", "version": toolVersion, "informationUri": "https://github.com/codewhale-ls/codewhale-ls", "rules": rules,
			}},
			"results": results,
			// The Codewhale behaviour checked against, and why.
			"properties": map[string]any{"codewhale": against},
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
