package diagnostics

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// sampleReport has a file in the repository (a space in its name, which
// a URI escapes) and one in the user's home, outside it.
func sampleReport(t *testing.T) (Report, string, string) {
	root := filepath.Join(t.TempDir(), "repo")
	inRepo := filepath.Join(root, ".codewhale", "my config.toml")
	home := filepath.Join(filepath.Dir(root), "home", ".codewhale", "permissions.toml")
	finding := Finding{Code: problem.PolicyLoosened, Severity: problem.Warning, Message: "loosens policy",
		Range: Range{Start: Position{Line: 2, Character: 4}, End: Position{Line: 2, Character: 9}}}
	return Report{Root: root, Against: release.Default("none"), Files: []FileReport{
		{Path: inRepo, Findings: []Finding{finding}},
		{Path: home, Findings: []Finding{{Code: problem.UnknownKey, Severity: problem.Error, Message: "unknown key"}}},
		{Path: filepath.Join(root, ".codewhale", "constitution.json"), Findings: []Finding{}},
	}}, inRepo, home
}

// TestSARIFForCodeScanning (issue 24, point 4): the log validates against
// the SARIF 2.1.0 schema (OASIS errata 01, testdata/sarif-schema-2.1.0.json,
// as vendored by github.com/owenrumney/go-sarif), and read back by a SARIF
// library it has what code scanning needs: the repository's files relative
// to %SRCROOT%, which originalUriBaseIds resolves; the home's file by its
// absolute URI; columns declared in UTF-16 code units; and every code of
// the table as a rule with its name, descriptions, help and level.
func TestSARIFForCodeScanning(t *testing.T) {
	r, inRepo, home := sampleReport(t)
	var out bytes.Buffer
	if err := WriteSARIF(&out, r, "test"); err != nil {
		t.Fatal(err)
	}

	schemaFile, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer schemaFile.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("the log is not SARIF 2.1.0: %v\n%s", err, out.String())
	}

	log, err := sarif.FromBytes(out.Bytes())
	if err != nil || len(log.Runs) != 1 {
		t.Fatalf("read back: %v", err)
	}
	run := log.Runs[0]
	if run.ColumnKind == nil || *run.ColumnKind != "utf16CodeUnits" {
		t.Errorf("columnKind %v, want utf16CodeUnits", run.ColumnKind)
	}
	rules := run.Tool.Driver.Rules
	if len(rules) != len(problem.Codes) {
		t.Errorf("%d rules, want one per code of the table (%d)", len(rules), len(problem.Codes))
	}
	for i, rule := range rules {
		info := problem.Codes[i]
		switch {
		case rule.ID == nil || *rule.ID != string(info.Code),
			rule.Name == nil || *rule.Name != info.Name,
			rule.ShortDescription == nil || rule.ShortDescription.Text == nil || *rule.ShortDescription.Text != info.Title,
			rule.FullDescription == nil || rule.FullDescription.Text == nil || !strings.HasPrefix(*rule.FullDescription.Text, info.Title),
			rule.Help == nil || rule.Help.Text == nil || !strings.Contains(*rule.Help.Text, DocURL(info.Code)),
			rule.DefaultConfiguration == nil || rule.DefaultConfiguration.Level != sarifLevel[info.Severity]:
			t.Errorf("rule %d is not the table's %s: %s", i, info.Code, mustJSON(rule))
		}
	}
	resolved := map[string]string{}
	for _, res := range run.Results {
		loc := res.Locations[0].PhysicalLocation.ArtifactLocation
		uri := *loc.URI
		if loc.URIBaseID != nil {
			base, ok := run.OriginalUriBaseIds[*loc.URIBaseID]
			if !ok || base.URI == nil {
				t.Fatalf("uriBaseId %s is not in originalUriBaseIds", *loc.URIBaseID)
			}
			if strings.Contains(uri, ":") || strings.HasPrefix(uri, "/") {
				t.Errorf("a repository file's URI %q is not relative", uri)
			}
			uri = *base.URI + uri
		}
		if got := *rules[res.RuleIndex].ID; got != *res.RuleID {
			t.Errorf("ruleIndex %d is %s, ruleId %s", res.RuleIndex, got, *res.RuleID)
		}
		resolved[*res.RuleID] = uri
	}
	if want := fileURI(inRepo); resolved["CW500"] != want {
		t.Errorf("the repository's file resolves to %q, want %q", resolved["CW500"], want)
	}
	if want := fileURI(home); resolved["CW002"] != want {
		t.Errorf("the home's file is %q, want its absolute URI %q", resolved["CW002"], want)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReportFormats (issue 24, point 4): GitHub annotations name the
// repository's files relative to it, text ends with one line counting
// what was checked (a clean file too), and JSON leaves `release` out when
// no Codewhale was named or found, as the contract says.
func TestReportFormats(t *testing.T) {
	r, _, home := sampleReport(t)
	var gh strings.Builder
	WriteGitHub(&gh, r)
	if !strings.Contains(gh.String(), "::warning file=.codewhale/my config.toml,line=3,col=5,") || !strings.Contains(gh.String(), "::error file="+escapeProperty(home)+",") {
		t.Errorf("github:\n%s", gh.String())
	}
	var text strings.Builder
	WriteText(&text, r)
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if last := lines[len(lines)-1]; last != "3 files checked: 1 error, 1 warning, 0 infos" {
		t.Errorf("text ends with %q\n%s", last, text.String())
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Codewhale map[string]any `json:"codewhale"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if _, present := got.Codewhale["release"]; present || got.Codewhale["behaviour"] == nil {
		t.Errorf("json codewhale member %v: want behaviour and no release when none was found", got.Codewhale)
	}
}
