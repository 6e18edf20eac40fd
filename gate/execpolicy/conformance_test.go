package execpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestConformance runs the machine-readable vectors of
// docs/codewhale/execpolicy.md §5 (kinds: absent = decision, split, match,
// path, parse) from every *.json file in testdata/conformance (the public
// vectors, committed) and, when $CODEWHALE_CONFORMANCE_DIR names one, from
// that directory too, so that vectors produced later reach a run without a
// commit. A file's top-level "codewhale" names the release whose engine
// produced it (absent: 0.9.10), and its vectors run against that release's
// behaviour. A vector found twice for the same release (same id, input and
// expectation) runs and counts once. Codewhale produced them on Linux, so
// path rules are checked without case folding.
func TestConformance(t *testing.T) {
	vectors := conformanceVectors(t, conformanceDirs())
	passed, failed := map[string]int{}, map[string]int{}
	for _, v := range vectors {
		name := v.release.Name()
		if t.Run(name+"/"+v.ID, func(t *testing.T) { runVector(t, v) }) {
			passed[name]++
		} else {
			failed[name]++
		}
	}
	var lines []string
	total := [2]int{}
	for _, r := range release.Implemented {
		if n := passed[r.Version] + failed[r.Version]; n > 0 {
			lines = append(lines, fmt.Sprintf("conformance %s: %d passed, %d failed", r.Version, passed[r.Version], failed[r.Version]))
			total[0] += passed[r.Version]
			total[1] += failed[r.Version]
		}
	}
	lines = append(lines, fmt.Sprintf("conformance: %d passed, %d failed", total[0], total[1]))
	for _, line := range lines {
		t.Log(line)
		reportToParent(line)
	}
}

// conformanceDirs are the committed vectors' directory and
// $CODEWHALE_CONFORMANCE_DIR, when set.
func conformanceDirs() []string {
	dirs := []string{filepath.Join("testdata", "conformance")}
	if extra := os.Getenv("CODEWHALE_CONFORMANCE_DIR"); extra != "" {
		dirs = append(dirs, extra)
	}
	return dirs
}

// Under a newer release, Result.Changes is set exactly when the outcome
// differs from the oldest release's, for every decision vector: a
// difference is never left unexplained, and a shared outcome names no
// change.
func TestChangesExplainEveryDifference(t *testing.T) {
	explained := 0
	for _, v := range conformanceVectors(t, conformanceDirs()) {
		if v.Kind != "" || v.release.Name() == release.Oldest().Version {
			continue
		}
		e, in := decisionCase(t, v.release, v.Input)
		res, base := e.Check(in), e.asOldest().Check(in)
		if differs := !sameOutcome(res, base); differs != (res.Changes != nil) {
			t.Errorf("%s %s: differs from %s: %v, changes %v", v.release.Name(), v.ID, release.Oldest().Version, differs, res.Changes)
		} else if differs {
			explained++
		}
	}
	if explained == 0 {
		t.Error("no decision vector differs from the oldest release")
	}
}

// conformanceVectors reads every *.json file of dirs, in order, dropping a
// vector identical to one already read for the same release. A directory
// without vector files is an error: a mistyped $CODEWHALE_CONFORMANCE_DIR
// must not pass quietly.
func conformanceVectors(t *testing.T, dirs []string) []vector {
	var out []vector
	seen := map[string]bool{}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no conformance files in %s (%v)", dir, err)
		}
		for _, file := range files {
			for _, v := range readVectors(t, file) {
				key, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if k := v.release.Name() + "\x00" + string(key); !seen[k] {
					seen[k] = true
					out = append(out, v)
				}
			}
		}
	}
	return out
}

type vector struct {
	ID       string                     `json:"id"`
	Source   string                     `json:"source"`
	Kind     string                     `json:"kind"`
	Input    map[string]json.RawMessage `json:"input"`
	Expected map[string]json.RawMessage `json:"expected"`
	// release is the file's "codewhale", the release the vector runs as.
	release release.Release
}

// readVectors reads a vector file. Its "codewhale" must name an
// implemented release: another release fails the test, naming the file,
// and its vectors run as the release Codewhale's users of it get (the
// newest implemented one not newer), so that the failures list what the
// new release changed.
func readVectors(t *testing.T, file string) []vector {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		About     string   `json:"about"`
		Codewhale *string  `json:"codewhale"`
		Vectors   []vector `json:"vectors"`
	}
	if err := strictUnmarshal(src, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	r := release.Oldest()
	if doc.Codewhale != nil {
		choice, err := release.Requested(*doc.Codewhale, file+": \"codewhale\"")
		if err != nil {
			t.Fatal(err)
		}
		r = choice.Implementation()
		if !choice.Exact() {
			t.Errorf("%s: \"codewhale\": %s is not an implemented release (%s); its vectors run as %s",
				file, *doc.Codewhale, release.ImplementedList(), r.Name())
		}
	}
	for i := range doc.Vectors {
		doc.Vectors[i].release = r
	}
	return doc.Vectors
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// inputFields are the input keys each kind may use.
var inputFields = map[string][]string{
	"":      {"permissions_toml", "rulesets", "legacy", "command", "mode", "tool", "cwd", "path"},
	"split": {"command"},
	"match": {"command", "pattern"},
	"path":  {"value", "workspace"},
	"parse": {"permissions_toml"},
}

func runVector(t *testing.T, v vector) {
	allowed, ok := inputFields[v.Kind]
	if !ok {
		t.Fatalf("unknown vector kind %q", v.Kind)
	}
	for key := range v.Input {
		if !slices.Contains(allowed, key) {
			t.Fatalf("unknown input field %q for kind %q", key, v.Kind)
		}
	}
	var actual map[string]any
	expected := v.Expected
	dialect := shell.DialectOf(v.release)
	switch v.Kind {
	case "":
		actual = decisionOutcome(t, v.release, v.Input)
	case "split":
		command := inputString(t, v.Input, "command", nil)
		e := shell.ExpandAs(v.release, command)
		actual = map[string]any{
			"naive_segments":        orEmpty(shell.Segments(command)),
			"chained":               chainedAs(behaviourOf(v.release), command, e),
			"expander_output":       orEmpty(e.Commands),
			"deny_targets":          orEmpty(denyTargets(nil, behaviourOf(v.release), command, e)),
			"dynamic":               e.Dynamic,
			"nested":                e.Nested,
			"arguments_dynamic":     e.ArgumentsDynamic,
			"redirects":             e.Redirects,
			"prefix_grant_eligible": e.PrefixGrantEligible,
		}
	case "match":
		command := inputString(t, v.Input, "command", nil)
		pattern := inputString(t, v.Input, "pattern", nil)
		actual = map[string]any{
			"classify":              dialect.Classify(command),
			"allow_rule_matches":    dialect.AllowMatch(pattern, command),
			"denied_prefix_matches": dialect.DenyMatch(pattern, command),
		}
	case "path":
		value := inputString(t, v.Input, "value", nil)
		workspace := inputString(t, v.Input, "workspace", nil)
		actual = map[string]any{
			"relative_case_sensitive":   optional(RelPath(value, workspace, false)),
			"relative_case_insensitive": optional(RelPath(value, workspace, true)),
			"scope_of_value":            optional(WorkspaceScope(value)),
			"scope_of_workspace":        optional(WorkspaceScope(workspace)),
		}
	case "parse":
		f, _ := ParseFile([]byte(inputString(t, v.Input, "permissions_toml", nil)))
		actual = map[string]any{"accepted": f.Accepted, "rules": nil, "serde_error_class": nil, "toml05_full_error": nil}
		if f.Accepted {
			actual["rules"] = serdeRules(f.RuleValues())
		} else {
			actual["serde_error_class"] = f.SerdeError
			actual["toml05_full_error"] = f.SerdeError
		}
		expected = maps.Clone(expected)
		if !serdeWorded(t, expected["serde_error_class"]) {
			// "accepted": false still says that the file is rejected.
			delete(expected, "serde_error_class")
		}
		if full, ok := expected["toml05_full_error"]; ok {
			if part, worded := serdePart(t, full); worded {
				expected["toml05_full_error"] = part
			} else {
				delete(expected, "toml05_full_error")
			}
		}
	}
	compareExpected(t, expected, actual)
}

// serdePart is the part of toml 0.5's full error that serde words: the
// class without toml's " for key `…`" and " at line N column M" (the
// location is toml 0.5's wording, which our parser does not share).
// worded is false for a message serde does not word.
func serdePart(t *testing.T, raw json.RawMessage) (part json.RawMessage, worded bool) {
	var full *string
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatalf("expected toml05_full_error: %v", err)
	}
	if full == nil {
		return raw, true
	}
	if !serdeWorded(t, raw) {
		return nil, false
	}
	class := *full
	for _, suffix := range []string{" for key `", " at line "} {
		if i := strings.LastIndex(class, suffix); i >= 0 {
			class = class[:i]
		}
	}
	part, err := json.Marshal(class)
	if err != nil {
		t.Fatal(err)
	}
	return part, true
}

// serdeWords begin the error classes serde itself words, the same under
// every toml version.
var serdeWords = []string{"unknown field ", "missing field ", "invalid type: ", "invalid length ", "unknown variant ", "duplicate field "}

// serdeWorded reports an expected serde_error_class that serde words. The
// vectors' other classes are toml 0.5's (syntax errors, its own enum and
// duplicate-key messages), which neither upstream's toml 1.x nor our
// parser shares: for them only the rejection is compared.
func serdeWorded(t *testing.T, raw json.RawMessage) bool {
	var class *string
	if raw != nil {
		if err := json.Unmarshal(raw, &class); err != nil {
			t.Fatalf("expected serde_error_class: %v", err)
		}
	}
	return class == nil || slices.ContainsFunc(serdeWords, func(w string) bool { return strings.HasPrefix(*class, w) })
}

func decisionOutcome(t *testing.T, r release.Release, in map[string]json.RawMessage) map[string]any {
	e, input := decisionCase(t, r, in)
	res := e.Check(input)
	out := map[string]any{
		"allow":             res.Allow,
		"requires_approval": res.RequiresApproval,
		"phase":             res.Phase.String(),
		"matched_action":    nil,
		"matched_rule":      nil,
		"reason":            res.Reason,
		"proposed_prefixes": nil,
	}
	if res.MatchedAction != nil {
		out["matched_action"] = res.MatchedAction.String()
	}
	if res.MatchedRule != nil {
		out["matched_rule"] = *res.MatchedRule
	}
	if res.ProposedPrefixes != nil {
		out["proposed_prefixes"] = res.ProposedPrefixes
	}
	return out
}

// decisionCase is a decision vector's engine, as release r, and call.
func decisionCase(t *testing.T, r release.Release, in map[string]json.RawMessage) (*Engine, Input) {
	var rulesets []Ruleset
	if raw, ok := in["permissions_toml"]; ok && string(raw) != "null" {
		f, _ := ParseFile([]byte(inputString(t, in, "permissions_toml", nil)))
		if !f.Accepted {
			t.Fatalf("permissions_toml rejected: %s", f.SerdeError)
		}
		if len(f.Rules) > 0 {
			rulesets = append(rulesets, CompileRules(f.RuleValues()))
		}
	}
	if raw, ok := in["rulesets"]; ok {
		rulesets = append(rulesets, decodeRulesets(t, raw)...)
	}
	opts := []Option{WithPathCaseFolding(false), WithRelease(r)}
	if raw, ok := in["legacy"]; ok {
		var legacy struct {
			Trusted []string `json:"trusted"`
			Denied  []string `json:"denied"`
		}
		if err := strictUnmarshal(raw, &legacy); err != nil {
			t.Fatalf("legacy: %v", err)
		}
		opts = append(opts, WithLegacyPrefixes(legacy.Trusted, legacy.Denied))
	}
	mode, err := ParseMode(inputString(t, in, "mode", nil))
	if err != nil {
		t.Fatal(err)
	}
	defaultTool, defaultCwd := DefaultTool, "/workspace"
	input := Input{
		Command: inputString(t, in, "command", nil),
		Tool:    inputString(t, in, "tool", &defaultTool),
		Cwd:     inputString(t, in, "cwd", &defaultCwd),
		Mode:    mode,
	}
	if raw, ok := in["path"]; ok && string(raw) != "null" {
		p := inputString(t, in, "path", nil)
		input.Path = &p
	}
	return NewEngine(rulesets, opts...), input
}

// serdeRuleset and serdeRule are the serde shapes of Codewhale's Ruleset and
// ToolAskRule.
type serdeRuleset struct {
	Layer    string      `json:"layer"`
	Trusted  []string    `json:"trusted_prefixes"`
	Denied   []string    `json:"denied_prefixes"`
	AskRules []serdeRule `json:"ask_rules"`
}

type serdeRule struct {
	Tool         string  `json:"tool"`
	Command      *string `json:"command,omitempty"`
	CommandExact bool    `json:"command_exact,omitempty"`
	Path         *string `json:"path,omitempty"`
	Workspace    *string `json:"workspace,omitempty"`
	Action       string  `json:"action"`
}

func decodeRulesets(t *testing.T, raw json.RawMessage) []Ruleset {
	var in []serdeRuleset
	if err := strictUnmarshal(raw, &in); err != nil {
		t.Fatalf("rulesets: %v", err)
	}
	out := make([]Ruleset, len(in))
	for i, rs := range in {
		layer, err := ParseLayer(rs.Layer)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = Ruleset{Layer: layer, TrustedPrefixes: rs.Trusted, DeniedPrefixes: rs.Denied}
		for _, r := range rs.AskRules {
			action := Ask
			if r.Action != "" {
				var ok bool
				if action, ok = ParseAction(r.Action); !ok {
					t.Fatalf("unknown action %q", r.Action)
				}
			}
			out[i].Typed = append(out[i].Typed, Rule{Tool: r.Tool, Command: r.Command,
				CommandExact: r.CommandExact, Path: r.Path, Workspace: r.Workspace, Action: action})
		}
	}
	return out
}

func serdeRules(rules []Rule) []serdeRule {
	out := make([]serdeRule, len(rules))
	for i, r := range rules {
		out[i] = serdeRule{Tool: r.Tool, Command: r.Command, CommandExact: r.CommandExact,
			Path: r.Path, Workspace: r.Workspace, Action: r.Action.String()}
	}
	return out
}

// inputString reads a string input, or its default when absent or null
// (serde's None: a null tool is exec_shell, unlike "").
func inputString(t *testing.T, in map[string]json.RawMessage, key string, def *string) string {
	raw, ok := in[key]
	if !ok || string(raw) == "null" {
		if def == nil {
			t.Fatalf("input %q missing", key)
		}
		return *def
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("input %q: %v", key, err)
	}
	return s
}

func optional(s string, ok bool) any {
	if !ok {
		return nil
	}
	return s
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// compareExpected checks every expected field against the JSON form of the
// actual value; null and a value differ.
func compareExpected(t *testing.T, expected map[string]json.RawMessage, actual map[string]any) {
	for key, raw := range expected {
		got, ok := actual[key]
		if !ok {
			t.Errorf("unknown expected field %q", key)
			continue
		}
		var want any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("expected %q: %v", key, err)
		}
		gotJSON, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var gotValue any
		if err := json.Unmarshal(gotJSON, &gotValue); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotValue, want) {
			t.Errorf("%s: got %s, want %s", key, gotJSON, raw)
		}
	}
}
