package diagnostics

import (
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

// lintWorld is a hermetic home and workspace under t.TempDir(): HOME points
// into it and config.toml names managed and requirements files inside it,
// so nothing under /etc is read.
type lintWorld struct {
	t                                                    testing.TB
	root, ws, config, permissions, overlay, constitution string
	configHead                                           string
}

func newLintWorld(t testing.TB, configExtra string) *lintWorld {
	t.Helper()
	root := t.TempDir()
	w := &lintWorld{t: t, root: root, ws: filepath.Join(root, "ws")}
	w.config = filepath.Join(root, "home", ".codewhale", "config.toml")
	w.permissions = filepath.Join(filepath.Dir(w.config), "permissions.toml")
	w.overlay = filepath.Join(w.ws, ".codewhale", "config.toml")
	w.constitution = filepath.Join(w.ws, ".codewhale", "constitution.json")
	w.configHead = "managed_config_path = " + tomlQuote(filepath.Join(root, "managed.toml")) + "\n" +
		"requirements_path = " + tomlQuote(filepath.Join(root, "requirements.toml")) + "\n"
	w.write(w.config, w.configHead+configExtra)
	if err := os.MkdirAll(w.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func tomlQuote(s string) string { return "'" + s + "'" }

func (w *lintWorld) write(path, src string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *lintWorld) options(buffers map[string]string) config.Options {
	b := config.Buffers{}
	for p, s := range buffers {
		b[p] = []byte(s)
	}
	return config.Options{ConfigFlag: w.config, Workspace: w.ws, Env: config.MapEnv{"HOME": filepath.Join(w.root, "home")}, Buffers: b}
}

// check lints with buffers standing in for files; baselines, when given,
// are the versions CW500 compares with.
func (w *lintWorld) check(buffers, baselines map[string]string) *Result {
	in := Input{Options: w.options(buffers)}
	if baselines != nil {
		in.Baseline = func(path string) ([]byte, bool) {
			s, ok := baselines[path]
			return []byte(s), ok
		}
	}
	return Check(in)
}

func problemsWithCode(r *Result, path, code string) []problem.Problem {
	f := r.File(path)
	if f == nil {
		return nil
	}
	var out []problem.Problem
	for _, p := range f.Problems {
		if string(p.Code) == code {
			out = append(out, p)
		}
	}
	return out
}

func spanText(src string, s problem.Span) string {
	if s.Start < 0 || s.End > len(src) || s.Start > s.End {
		return "<bad span>"
	}
	return src[s.Start:s.End]
}

func applyFix(src string, fix problem.Fix) string { return string(ApplyFix([]byte(src), fix)) }

func TestPermissionLints(t *testing.T) {
	tests := []struct {
		name        string
		config      string // extra config.toml text
		permissions string
		code        string
		want        []string // the span text of each finding of code, in order
		message     string   // a substring of the first finding's message
		related     string   // the span text of the first finding's first related location
		fix         string   // the file after the first fix of the first finding
		safe        bool
	}{
		{
			name:        "allow shadowed by a case-different ask",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\naction = \"allow\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \" GIT STATUS \"\n",
			code:        "CW200", want: []string{"rules"},
			message: "this allow never wins: the ask rule at line 6 matches every call it matches, and in one layer ask beats allow",
			related: "rules",
		},
		{
			name:        "exact allow shadowed by a prefix deny",
			permissions: "rules = [\n  { tool = \"exec_shell\", command = \"cargo test --workspace\", command_exact = true, action = \"allow\" },\n  { tool = \"exec_shell\", command = \"cargo test\", action = \"deny\" },\n]\n",
			code:        "CW200", want: []string{`{ tool = "exec_shell", command = "cargo test --workspace", command_exact = true, action = "allow" }`},
			message: "the deny at line 3 is the hard-deny prefix `cargo test`, which Codewhale 0.9.10 checks before every typed rule",
		},
		{
			name:        "deny, except my branch: the allow never decides (issue 24, point 2)",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push origin feature\"\naction = \"allow\"\n",
			code:        "CW200", want: []string{"rules"},
			message: "this allow never decides a call: the deny at line 1 is the hard-deny prefix `git push`",
			related: "rules",
		},
		{
			name:        "no CW205 for an allow a deny overrules (issue 24, point 2)",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push origin feature\"\naction = \"allow\"\n",
			code:        "CW205",
		},
		{
			name:        "path rules compared relative to the workspace",
			permissions: "[[rules]]\ntool = \"write_file\"\npath = \"src/a.rs\"\nworkspace = \"/repo\"\naction = \"allow\"\n\n[[rules]]\ntool = \"write_file\"\npath = \"/repo/src/a.rs\"\nworkspace = \"/repo/\"\n",
			code:        "CW200", want: []string{"rules"},
		},
		{
			name:        "no shadow across workspaces, tools or a narrower winner",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\nworkspace = \"/a\"\naction = \"allow\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\nworkspace = \"/b\"\naction = \"deny\"\n\n[[rules]]\ntool = \"read_file\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git\"\naction = \"allow\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\ncommand_exact = true\n",
			code:        "CW200",
		},
		{
			name:        "duplicate table deleted with its header",
			permissions: "[[rules]]\ntool = \"read_file\"\npath = \".env\"\naction = \"deny\"\n\n[[rules]]\ntool = \"read_file\"\npath = \".env\"\naction = \"deny\"\n",
			code:        "CW201", want: []string{"rules"},
			message: "the rule at line 1 is identical", related: "rules",
			fix:  "[[rules]]\ntool = \"read_file\"\npath = \".env\"\naction = \"deny\"\n",
			safe: true,
		},
		{
			name:        "duplicate inline element on its own line deleted with the line",
			permissions: "rules = [\n  { tool = \"read_file\", path = \"a\" },\n  { tool = \"read_file\", path = \"a\" },\n  { tool = \"read_file\", path = \"b\" },\n]\n",
			code:        "CW201", want: []string{`{ tool = "read_file", path = "a" }`},
			fix:  "rules = [\n  { tool = \"read_file\", path = \"a\" },\n  { tool = \"read_file\", path = \"b\" },\n]\n",
			safe: true,
		},
		{
			name:        "duplicate inline element deleted with its comma",
			permissions: "rules = [{ tool = \"read_file\", path = \"a\" }, { tool = \"read_file\", path = \"a\" }]\n",
			code:        "CW201", want: []string{`{ tool = "read_file", path = "a" }`},
			fix:  "rules = [{ tool = \"read_file\", path = \"a\" }]\n",
			safe: true,
		},
		{
			name:        "ask under approval_policy never",
			config:      "approval_policy = \"never\"\n",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"ask\"\n\n[[rules]]\ntool = \"write_file\"\npath = \"Cargo.lock\"\n",
			code:        "CW202", want: []string{`"ask"`, "rules"},
			message: "blocks instead of asking", related: `"never"`,
		},
		{
			name:        "promoted deny on another tool",
			permissions: "[[rules]]\ntool = \"read_file\"\ncommand = \"cat\"\naction = \"deny\"\n",
			code:        "CW203", want: []string{`"cat"`},
			message: "global hard-deny shell prefix",
		},
		{
			name:        "promoted allow with a path",
			permissions: "[[rules]]\ntool = \"write_file\"\ncommand = \"make\"\npath = \"Makefile\"\naction = \"allow\"\n\n[[rules]]\ntool = \"write_file\"\ncommand = \"make\"\ncommand_exact = true\naction = \"allow\"\n",
			code:        "CW203", want: []string{`"make"`},
			message: "trusts `make` for every tool, path and repository",
		},
		{
			name:        "exact, scoped and flagged denies",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\ncommand_exact = true\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\nworkspace = \"/repo\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push --force\"\naction = \"deny\"\n",
			code:        "CW204", want: []string{"true", `"/repo"`, `"rm -rf /"`, `"git push --force"`},
			message: "no hard prefix",
		},
		{
			name:        "allow rides redirections",
			permissions: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\naction = \"allow\"\n",
			code:        "CW205", want: []string{`"git status"`},
			message: "`git status > ~/.bashrc`",
		},
		{
			name:        "dead workspaces",
			permissions: "rules = [\n{ tool = \"exec_shell\", command = \"rm\", workspace = \"repo\", action = \"deny\" },\n{ tool = \"read_file\", workspace = \"/\" },\n{ tool = \"read_file\", workspace = \"/a/../b\" },\n{ tool = \"read_file\", workspace = \"C:/\" },\n]\n",
			code:        "CW206", want: []string{`"repo"`, `"/"`, `"/a/../b"`, `"C:/"`},
			message: "not promoted to a hard-deny prefix either",
		},
		{
			name:        "paths that never match or match literally",
			permissions: "rules = [\n{ tool = \"read_file\", path = \"src/*.rs\" },\n{ tool = \"read_file\", path = \"../secret\" },\n{ tool = \"read_file\", path = \" \" },\n{ tool = \"read_file\", path = \"/etc/passwd\", workspace = \"/repo\" },\n{ tool = \"read_file\", path = \"~/.ssh/id_rsa\" },\n{ tool = \"exec_shell\", path = \"x\" },\n]\n",
			code:        "CW207", want: []string{`"src/*.rs"`, `"../secret"`, `" "`, `"/etc/passwd"`, `"~/.ssh/id_rsa"`, `"x"`},
			message: "only a file named exactly \"src/*.rs\"",
		},
		{
			name:        "tools the rule layer never evaluates",
			permissions: "rules = [\n{ tool = \"bash\" },\n{ tool = \"File\" },\n{ tool = \"Shell\" },\n{ tool = \"write\" },\n{ tool = \"patch\" },\n{ tool = \"grep_file\" },\n]\n",
			code:        "CW208", want: []string{`"bash"`, `"File"`, `"Shell"`, `"write"`, `"patch"`, `"grep_file"`},
			message: "never evaluates the tool \"bash\"",
			fix:     "rules = [\n{ tool = \"exec_shell\" },\n{ tool = \"File\" },\n{ tool = \"Shell\" },\n{ tool = \"write\" },\n{ tool = \"patch\" },\n{ tool = \"grep_file\" },\n]\n",
		},
		{
			name:        "command_exact without command",
			permissions: "[[rules]]\ntool = \"read_file\"\ncommand_exact = true\n",
			code:        "CW209", want: []string{"command_exact"},
		},
		{
			name:        "rules written as arrays",
			permissions: "rules = [\n[\"exec_shell\", \"git push\", false, \"\", \"\", \"deny\"],\n{ tool = \"read_file\" },\n[\"exec_shell\", \"make\", true],\n]\n",
			code:        "CW210", want: []string{`["exec_shell", "git push", false, "", "", "deny"]`, `["exec_shell", "make", true]`},
			message: `reads it as { tool = "exec_shell", command = "git push", path = "", workspace = "", action = "deny" }`,
			fix:     "rules = [\n{ tool = \"exec_shell\", command = \"git push\", path = \"\", workspace = \"\", action = \"deny\" },\n{ tool = \"read_file\" },\n[\"exec_shell\", \"make\", true],\n]\n",
			safe:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newLintWorld(t, tt.config)
			r := w.check(map[string]string{w.permissions: tt.permissions}, nil)
			got := problemsWithCode(r, w.permissions, tt.code)
			var spans []string
			for _, p := range got {
				spans = append(spans, spanText(tt.permissions, p.Span))
			}
			if !slices.Equal(spans, tt.want) {
				t.Fatalf("%s spans = %q, want %q\nall: %+v", tt.code, spans, tt.want, r.File(w.permissions).Problems)
			}
			if len(got) == 0 {
				return
			}
			p := got[0]
			if !strings.Contains(p.Message, tt.message) {
				t.Errorf("message %q does not contain %q", p.Message, tt.message)
			}
			if tt.related != "" {
				if len(p.Related) == 0 {
					t.Fatalf("no related information")
				}
				rel := p.Related[0]
				src := tt.permissions
				if rel.File != w.permissions {
					src = string(r.File(rel.File).Src)
				}
				if got := spanText(src, rel.Span); got != tt.related || rel.Span == p.Span {
					t.Errorf("related span = %q at %v, want %q elsewhere than %v", got, rel.Span, tt.related, p.Span)
				}
			}
			if tt.fix != "" {
				if len(p.Fixes) == 0 {
					t.Fatalf("no fix")
				}
				if got := applyFix(tt.permissions, p.Fixes[0]); got != tt.fix {
					t.Errorf("after the fix:\n%s\nwant:\n%s", got, tt.fix)
				}
				if p.Fixes[0].Safe != tt.safe {
					t.Errorf("fix safe = %v, want %v", p.Fixes[0].Safe, tt.safe)
				}
			}
		})
	}
}

func TestUnevaluatedToolSuggestions(t *testing.T) {
	for name, want := range map[string]string{
		"bash": "exec_shell", "Bash": "exec_shell", "shell": "exec_shell", "sh": "exec_shell",
		"File": "read_file", "read": "read_file", "write": "write_file", "edit": "edit_file",
		"patch": "apply_patch", "list_dirs": "list_dir", "grep_file": "grep_files",
	} {
		if got := suggestTool(name); got != want {
			t.Errorf("suggestTool(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestReorderedFlagsSlip: every respelling the CW204 message shows is one
// the deny really misses.
func TestReorderedFlagsSlip(t *testing.T) {
	for cmd, want := range map[string]string{
		"rm -rf /":         "rm -fr /",
		"git push --force": "git push -f",
		"git push -f":      "git push x -f",
		"rm -r /":          "rm / -r",
		"git push":         "",
	} {
		got, ok := reorderedFlags(cmd, release.Release{})
		if got != want || ok != (want != "") {
			t.Errorf("reorderedFlags(%q) = %q, %v; want %q", cmd, got, ok, want)
		}
	}
}

// TestCleanPermissions: the example of docs/codewhale/execpolicy.md §1.4, without its
// deliberately suspicious allow (`git diff` rides redirections), draws none
// of CW200–CW210.
func TestCleanPermissions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "clean_permissions.toml"))
	if err != nil {
		t.Fatal(err)
	}
	w := newLintWorld(t, "")
	r := w.check(map[string]string{w.permissions: string(src)}, nil)
	f := r.File(w.permissions)
	if f == nil || f.State != config.Loaded {
		t.Fatalf("permissions.toml not loaded: %+v", f)
	}
	for _, p := range f.Problems {
		// CW211 informs on every shell deny some rewrite walks past
		// (bypass_test.go); a clean file may have such denies.
		if p.Code == problem.RuleBypassed {
			continue
		}
		t.Errorf("unexpected %s at %q: %s", p.Code, spanText(string(src), p.Span), p.Message)
	}
}

// CW210's rewrite drops what the array holds besides the rule: with a
// comment inside, the fix is offered but not applied in bulk.
func TestPositionalRuleFixSafety(t *testing.T) {
	w := newLintWorld(t, "")
	for src, safe := range map[string]bool{
		"rules = [[\"exec_shell\", \"make\", true]]\n":                    true,
		"rules = [[\"exec_shell\", \"a#b\", true, '#', \"\"\"#\"\"\"]]\n": true,
		"rules = [[\"exec_shell\", # why\n \"make\", true]]\n":            false,
		"rules = [[\"exec_shell\", \"x\\\"\", # \"\n true]]\n":            false,
	} {
		got := problemsWithCode(w.check(map[string]string{w.permissions: src}, nil), w.permissions, "CW210")
		if len(got) != 1 || len(got[0].Fixes) != 1 || got[0].Fixes[0].Safe != safe {
			t.Errorf("%q: %+v, want one fix with Safe = %v", src, got, safe)
		}
	}
}

func TestRejectedPermissionsGetNoSemanticLints(t *testing.T) {
	w := newLintWorld(t, "")
	src := "[[rules]]\ntool = \"bash\"\naction = \"block\"\n"
	r := w.check(map[string]string{w.permissions: src}, nil)
	for _, p := range r.File(w.permissions).Problems {
		if strings.HasPrefix(string(p.Code), "CW2") {
			t.Errorf("rejected file got %s: %s", p.Code, p.Message)
		}
	}
}

// BenchmarkCheckThousandRules: CW200 and CW201 compare every pair of rules,
// at every release.
func BenchmarkCheckThousandRules(b *testing.B) {
	var src strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&src, "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cmd%d sub\"\nworkspace = \"/repo/%d\"\naction = \"%s\"\n\n", i, i%7, []string{"allow", "ask", "deny"}[i%3])
	}
	w := newLintWorld(b, "")
	buffers := map[string]string{w.permissions: src.String()}
	for _, r := range release.Implemented {
		b.Run(r.Version, func(b *testing.B) {
			for b.Loop() {
				w.checkAt(r.Version, buffers)
			}
		})
	}
}

// A message quotes at most an excerpt of a rule's command: before, a deny
// of a 1 MB command made CW204 messages of 2 MB.
func TestMessagesQuoteAnExcerpt(t *testing.T) {
	w := newLintWorld(t, "")
	long := "rm -rf /" + strings.Repeat("x", 1<<20)
	w.write(w.permissions, "[[rules]]\ntool = \"exec_shell\"\ncommand = \""+long+"\"\ncommand_exact = true\naction = \"deny\"\n"+
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \""+long+" --a -b\"\nworkspace = \"/repo\"\naction = \"deny\"\n")
	r := w.check(nil, nil)
	for _, f := range r.Files {
		for _, p := range f.Problems {
			if len(p.Message) > 2000 {
				t.Errorf("%s: a message of %d bytes: %.300s", p.Code, len(p.Message), p.Message)
			}
		}
	}
	if len(problemsWithCode(r, w.permissions, "CW204")) == 0 {
		t.Fatal("no CW204 to check")
	}
}
