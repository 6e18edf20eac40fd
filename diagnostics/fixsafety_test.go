package diagnostics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// A fix never makes the file worse (issue 24, point 5): over every
// fixture of the language server's golden corpus (rpc/testdata/golden),
// plus the few files below that carry fixes the corpus lacks, at every
// release, each quick fix of each finding (safe or not) is applied and the
// files linted again. The finding it fixed is gone, and no finding as
// severe as it, or more, appears that was not there before (a finding is
// its file, code and the text it points at, which an edit elsewhere does
// not change). Milder ones may: a fix that makes a rejected file load, or
// a rule apply, lets the lints see what the mistake hid. So a fix of an
// info, such as CW211's added rules, brings no new finding at all.
func TestFixesNeverMakeAFileWorse(t *testing.T) {
	archives, _ := filepath.Glob("../rpc/testdata/golden/*.txtar")
	if len(archives) == 0 {
		t.Fatal("no golden fixtures found")
	}
	type fixture struct {
		name  string
		files map[string]string
	}
	var fixtures []fixture
	for _, a := range archives {
		data, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for name, text := range splitArchive(data) {
			if name != "want" && !strings.HasPrefix(name, "edited/") {
				files[name] = text
			}
		}
		fixtures = append(fixtures, fixture{name: filepath.Base(a), files: files})
	}
	// Fixes the corpus has no finding for, each in a file of its own.
	for name, perms := range map[string]string{
		"rm deny (CW211, CW204)":    "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push --force\"\naction = \"deny\"\n",
		"rm ask (CW211)":            "rules = [\n  { tool = \"exec_shell\", command = \"rm -fr /tmp\", action = \"ask\" },\n]\n",
		"positional rule (CW210)":   "rules = [\n  [\"exec_shell\", \"git push\", false],\n  [\"read_file\", \"\", false, \".env\"], # secrets\n]\n",
		"rooted path (CW207)":       "[[rules]]\ntool = \"read_file\"\npath = \"/etc//shadow\"\naction = \"deny\"\n",
		"tool alias (CW208)":        "[[rules]]\ntool = \"shell\"\ncommand = \"git push\"\naction = \"deny\"\n",
		"duplicate inline (CW201)":  "rules = [\n  { tool = \"read_file\", path = \".env\", action = \"deny\" },\n  { tool = \"read_file\", path = \".env\", action = \"deny\" },\n]\n",
		"action case (CW003)":       "[[rules]]\ntool = \"exec_shell\"\ncommand = \"make\"\naction = \"Allow\"\n",
		"wildcard in 0.10 (CW204)":  "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push -f origin\"\naction = \"deny\"\n",
		"misspelt overlay (CW102)!": "aproval_policy = \"never\"\n",
	} {
		files := map[string]string{"home/.codewhale/permissions.toml": perms}
		if strings.HasSuffix(name, "!") {
			files = map[string]string{"ws/.codewhale/config.toml": perms}
		}
		fixtures = append(fixtures, fixture{name: name, files: files})
	}
	slices.SortFunc(fixtures, func(a, b fixture) int { return strings.Compare(a.name, b.name) })

	fixedCodes := map[problem.Code]int{}
	applied := 0
	for _, fx := range fixtures {
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			tmp := t.TempDir()
			opts, paths := fixtureOptions(t, tmp, fx.files)
			choice, err := release.Requested(version, "test")
			if err != nil {
				t.Fatal(err)
			}
			lint := func(buffers config.Buffers) *Result {
				o := opts
				o.Buffers = buffers
				return Check(Input{Options: o, Codewhale: choice})
			}
			before := lint(paths)
			for _, f := range before.Files {
				for _, p := range f.Problems {
					for _, fix := range p.Fixes {
						applied++
						fixedCodes[p.Code]++
						if !fix.Safe && fix.WhyNotSafe == "" {
							t.Errorf("%s at %s: %s's fix %q is not safe and does not say why (check --fix would print %q)", fx.name, version, p.Code, fix.Title, notSafeUnsaid)
						}
						buffers := config.Buffers{}
						for k, v := range paths {
							buffers[k] = v
						}
						buffers[f.Path] = ApplyFix(f.Src, fix)
						after := lint(buffers)
						where := fmt.Sprintf("%s at %s: %s %q fixed by %q", fx.name, version, p.Code, spanText(string(f.Src), p.Span), fix.Title)
						worse := slices.DeleteFunc(findingsAdded(before, after), func(w finding) bool { return w.severity > p.Severity })
						if id := findingOf(f.Path, f.Src, p); countOf(after, id) >= countOf(before, id) {
							t.Errorf("%s: the finding is still there:\n%s", where, buffers[f.Path])
						}
						for _, w := range worse {
							t.Errorf("%s: the fix brings a new finding %s %q: %s\n%s", where, w.code, w.text, w.message, buffers[f.Path])
						}
					}
				}
			}
		}
	}
	// Every code that offers a fix anywhere in the corpus was exercised.
	for _, code := range []problem.Code{problem.UnknownKey, problem.InvalidValue, problem.ProjectKeyIgnored, problem.RuleDuplicate, problem.WeakDeny, problem.PathNeverMatches, problem.ToolNeverEvaluated, problem.RuleAsArray, problem.RuleBypassed, problem.ValueDoesNotRestrict} {
		if fixedCodes[code] == 0 {
			t.Errorf("no fix of %s was tried", code)
		}
	}
	t.Logf("%d fixes applied over %d fixtures at 3 releases: %v", applied, len(fixtures), fixedCodes)
}

// finding is a finding as an edit elsewhere in the file leaves it.
type finding struct {
	path, text string
	code       problem.Code
	severity   problem.Severity
	message    string // for the failure only
	key        string
}

func findingOf(path string, src []byte, p problem.Problem) finding {
	text := ""
	if p.Span.End <= len(src) && p.Span.Start <= p.Span.End {
		text = string(src[p.Span.Start:p.Span.End])
	}
	return finding{path: path, text: text, code: p.Code, severity: p.Severity, message: p.Message, key: path + "\x00" + string(p.Code) + "\x00" + text}
}

func countOf(r *Result, id finding) int {
	n := 0
	for _, f := range r.Files {
		for _, p := range f.Problems {
			if findingOf(f.Path, f.Src, p).key == id.key {
				n++
			}
		}
	}
	return n
}

// findingsAdded are the findings of after more often than of before.
func findingsAdded(before, after *Result) []finding {
	var out []finding
	seen := map[string]bool{}
	for _, f := range after.Files {
		for _, p := range f.Problems {
			id := findingOf(f.Path, f.Src, p)
			if seen[id.key] {
				continue
			}
			seen[id.key] = true
			if countOf(after, id) > countOf(before, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// fixtureOptions writes a fixture's files under tmp as the golden test
// does (home/ is $HOME, ws/ the workspace, a hermetic config.toml unless
// the fixture has one) and returns the options and every file as a buffer.
func fixtureOptions(t *testing.T, tmp string, files map[string]string) (config.Options, config.Buffers) {
	t.Helper()
	home, ws := filepath.Join(tmp, "home"), filepath.Join(tmp, "ws")
	cfg := filepath.Join(home, ".codewhale", "config.toml")
	if _, ok := files["home/.codewhale/config.toml"]; !ok {
		files = maps(files, "home/.codewhale/config.toml", "managed_config_path = '$TMP/managed.toml'\nrequirements_path = '$TMP/requirements.toml'\n")
	}
	buffers := config.Buffers{}
	for name, text := range files {
		path := filepath.Join(tmp, filepath.FromSlash(name))
		text = strings.ReplaceAll(text, "$TMP", tmp)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		buffers[path] = []byte(text)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return config.Options{ConfigFlag: cfg, Workspace: ws, Env: config.MapEnv{"HOME": home}}, buffers
}

func maps(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

// splitArchive reads a txtar archive's sections by name.
func splitArchive(data []byte) map[string]string {
	out := map[string]string{}
	name := ""
	var body bytes.Buffer
	flush := func() {
		if name != "" {
			out[name] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			continue
		}
		if name != "" {
			body.WriteString(line)
		}
	}
	flush()
	return out
}
