package repolaw

import (
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// The schema and compile rules of docs/codewhale/pipeline.md §7.1 and the lints of §11.
func TestParse(t *testing.T) {
	const rule = `{"text":"Frozen","paths":["crates/protocol/**"],"action":"block"}`
	tests := []struct {
		name     string
		text     string
		codes    []string // "CODE/severity" of every problem, in order
		spanText string   // the text the first problem underlines
		rules    int
	}{
		{"LAW", lawJSON, []string{"CW401/info"}, `"Keep the public API documented"`, 2},
		{"empty object", `{}`, nil, "", 0},
		{"unknown fields of any type are ignored", `{"x":[1,{"y":null}],"protected_invariants":[` + rule + `],"z":"\ud800"}`, nil, "", 1},
		{"all declared fields", `{"schema_version":1,"authority":["a"],"branch_policy":"main","escalate_when":["b"],"verification_policy":{"before_claiming_done":["cargo test"],"extra":1},"protected_invariants":["prose",` + rule + `]}`, []string{"CW401/info"}, `"prose"`, 1},
		{"nulls for optional scalars", `{"schema_version":null,"branch_policy":null,"verification_policy":null,"protected_invariants":[` + rule + `]}`, nil, "", 1},
		{"largest u32", `{"schema_version":4294967295}`, nil, "", 0},
		{"surrogate pair is fine", `{"protected_invariants":[{"text":"\ud83d\ude00","paths":["a"]}]}`, nil, "", 1},
		{"unknown invariant fields ignored", `{"protected_invariants":[{"text":"t","paths":["a"],"why":{"deep":[1]}}]}`, nil, "", 1},

		// Syntax errors: CW001 at the exact byte.
		{"not JSON", `{ not json`, []string{"CW001/error"}, "n", 0},
		{"trailing comma", `{"protected_invariants":[` + rule + `,]}`, []string{"CW001/error"}, ",", 0},
		{"BOM", "\ufeff{}", []string{"CW001/error"}, "\ufeff", 0},
		{"truncated", `{"protected_invariants":[`, []string{"CW001/error"}, "", 0},
		{"comment", "{} // x", []string{"CW001/error"}, "/", 0},
		{"invalid UTF-8", "{\"x\":\"\xff\"}", []string{"CW001/error"}, "\xff", 0},
		{"whitespace only", " \n", []string{"CW001/error"}, "", 0},

		// The file is ignored as a whole: CW400 and zero rules.
		{"empty", ``, []string{"CW400/error"}, "", 0},
		{"top-level array", `[]`, []string{"CW400/error"}, "[]", 0},
		{"action Block", `{"protected_invariants":[` + rule + `,{"text":"x","paths":["a"],"action":"Block"}]}`, []string{"CW400/error"}, `"Block"`, 0},
		{"action null", `{"protected_invariants":[{"text":"x","paths":["a"],"action":null}]}`, []string{"CW400/error"}, "null", 0},
		{"missing text", `{"protected_invariants":[` + rule + `,{"paths":["a"]}]}`, []string{"CW400/error"}, `{"paths":["a"]}`, 0},
		{"text not a string", `{"protected_invariants":[{"text":5,"paths":["a"]}]}`, []string{"CW400/error"}, "5", 0},
		{"text null", `{"protected_invariants":[{"text":null,"paths":["a"]}]}`, []string{"CW400/error"}, "null", 0},
		{"duplicate text", `{"protected_invariants":[{"text":"a","text":"b","paths":["a"]}]}`, []string{"CW400/error"}, `"text"`, 0},
		{"duplicate top-level field", `{"protected_invariants":[],"protected_invariants":[` + rule + `]}`, []string{"CW400/error"}, `"protected_invariants"`, 0},
		{"entry is a number", `{"protected_invariants":[` + rule + `,3]}`, []string{"CW400/error"}, "3", 0},
		{"protected_invariants an object", `{"protected_invariants":` + rule + `}`, []string{"CW400/error"}, rule, 0},
		{"protected_invariants null", `{"protected_invariants":null}`, []string{"CW400/error"}, "null", 0},
		{"paths a string", `{"protected_invariants":[{"text":"t","paths":"a/**"}]}`, []string{"CW400/error"}, `"a/**"`, 0},
		{"paths element a number", `{"protected_invariants":[{"text":"t","paths":["a",1]}]}`, []string{"CW400/error"}, "1", 0},
		{"schema_version a string", `{"schema_version":"1","protected_invariants":[` + rule + `]}`, []string{"CW400/error"}, `"1"`, 0},
		{"schema_version a float", `{"schema_version":1.0}`, []string{"CW400/error"}, "1.0", 0},
		{"schema_version negative", `{"schema_version":-1}`, []string{"CW400/error"}, "-1", 0},
		{"schema_version -0", `{"schema_version":-0}`, []string{"CW400/error"}, "-0", 0},
		{"schema_version too large", `{"schema_version":4294967296}`, []string{"CW400/error"}, "4294967296", 0},
		{"authority a string", `{"authority":"me"}`, []string{"CW400/error"}, `"me"`, 0},
		{"authority null", `{"authority":null}`, []string{"CW400/error"}, "null", 0},
		{"escalate_when element", `{"escalate_when":[true]}`, []string{"CW400/error"}, "true", 0},
		{"branch_policy a number", `{"branch_policy":3}`, []string{"CW400/error"}, "3", 0},
		{"verification_policy an array", `{"verification_policy":[]}`, []string{"CW400/error"}, "[]", 0},
		{"before_claiming_done a string", `{"verification_policy":{"before_claiming_done":"cargo test"}}`, []string{"CW400/error"}, `"cargo test"`, 0},
		{"lone surrogate in text", `{"protected_invariants":[{"text":"\ud800","paths":["a"]}]}`, []string{"CW400/error"}, `"\ud800"`, 0},
		{"lone surrogate inside an invariant's unknown field", `{"protected_invariants":[{"text":"t","paths":["a"],"x":["\udc00"]}]}`, []string{"CW400/error"}, `"\udc00"`, 0},
		{"lone surrogate in a top-level key", `{"\ud800":1}`, []string{"CW400/error"}, `"\ud800"`, 0},
		{"every cause is reported", `{"schema_version":"1","authority":3}`, []string{"CW400/error", "CW400/error"}, `"1"`, 0},

		// Advisories: the file stands, some invariants protect nothing.
		{"no paths", `{"protected_invariants":[{"text":"Be careful"},` + rule + `]}`, []string{"CW401/info"}, `"Be careful"`, 1},
		{"empty paths", `{"protected_invariants":[{"text":"t","paths":[]}]}`, []string{"CW401/info"}, "[]", 0},
		{"blank paths", `{"protected_invariants":[{"text":"t","paths":["  ",""]}]}`, []string{"CW401/info"}, `["  ",""]`, 0},
		{"invalid glob", `{"protected_invariants":[{"paths":["crates/[invalid"],"text":"broken glob"}]}`, []string{"CW400/warning", "CW401/info"}, `"crates/[invalid"`, 0},
		{"one invalid glob among valid ones", `{"protected_invariants":[{"text":"t","paths":["{a","b/**"]}]}`, []string{"CW400/warning"}, `"{a"`, 1},
		{"a bare string", `{"protected_invariants":["Keep the API stable",` + rule + `,"  "]}`, []string{"CW401/info"}, `"Keep the API stable"`, 1},
		{"a glob anchored at /", `{"protected_invariants":[{"text":"t","paths":["/CHANGELOG.md","b/**"]}]}`, []string{"CW400/warning"}, `"/CHANGELOG.md"`, 1},
		{"a glob starting with ./", `{"protected_invariants":[{"text":"t","paths":["././crates/**"]}]}`, []string{"CW400/warning"}, `"././crates/**"`, 1},
		{"a glob starting with ../ can match", `{"protected_invariants":[{"text":"t","paths":["../x/**"]}]}`, nil, "", 1},
		{"blank text is skipped silently", `{"protected_invariants":[{"text":"  ","paths":["[bad"]}]}`, nil, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			law, problems := Parse([]byte(tt.text))
			var codes []string
			for _, p := range problems {
				codes = append(codes, string(p.Code)+"/"+p.Severity.String())
			}
			if !slices.Equal(codes, tt.codes) {
				t.Fatalf("problems = %v, want %v: %+v", codes, tt.codes, problems)
			}
			if len(law.Rules) != tt.rules {
				t.Errorf("rules = %d, want %d", len(law.Rules), tt.rules)
			}
			if len(problems) == 0 {
				return
			}
			span := problems[0].Span
			if got := tt.text[span.Start:span.End]; got != tt.spanText {
				t.Errorf("span %v underlines %q, want %q", span, got, tt.spanText)
			}
			for _, p := range problems {
				if p.Severity == problem.Error && !strings.Contains(p.Message, "zero paths are protected") {
					t.Errorf("error %q does not say that nothing is protected", p.Message)
				}
			}
		})
	}
}

func TestParseSizeLimit(t *testing.T) {
	padded := func(n int) []byte { return []byte("{}" + strings.Repeat(" ", n-2)) }
	if _, problems := Parse(padded(maxFileSize)); problems != nil {
		t.Errorf("exactly 100 KiB: %v", problems)
	}
	law, problems := Parse(padded(maxFileSize + 1))
	if len(problems) != 1 || problems[0].Code != "CW400" || law.Rules != nil {
		t.Errorf("over 100 KiB: %v", problems)
	}
}

func TestParseCompilesRules(t *testing.T) {
	law, _ := Parse([]byte(lawJSON))
	want := []struct {
		text     string
		patterns []string
		action   Action
	}{
		{"The wire format is frozen", []string{"crates/protocol/**"}, Block},
		{"Release notes need human review", []string{"CHANGELOG.md"}, Ask},
	}
	for i, w := range want {
		r := law.Rules[i]
		if r.Text != w.text || !slices.Equal(r.Patterns, w.patterns) || r.Action != w.action {
			t.Errorf("rule %d = %+v, want %+v", i, r, w)
		}
		if !strings.HasPrefix(lawJSON[r.Span.Start:r.Span.End], `{"text": "`+w.text) {
			t.Errorf("rule %d span underlines %q", i, lawJSON[r.Span.Start:r.Span.End])
		}
	}
}
