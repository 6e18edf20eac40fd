package diagnostics

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func TestLoaderFixes(t *testing.T) {
	tests := []struct {
		name    string
		config  string // extra user config.toml text
		file    string // which file src is: permissions, config or overlay
		src     string
		code    string
		want    string // the file after the fix
		safe    bool
		noFixes bool
	}{
		{name: "unknown rule key renamed", file: "permissions", code: "CW002",
			src:  "[[rules]]\ntool = \"exec_shell\"\ncomand = \"git push\"\n",
			want: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\n"},
		{name: "rename refused when the key exists", file: "permissions", code: "CW002",
			src: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"a\"\ncomand = \"b\"\n", noFixes: true},
		{name: "unknown config key renamed", file: "config", code: "CW002",
			src:  "aproval_policy = \"never\"\n",
			want: "approval_policy = \"never\"\n"},
		{name: "misspelt project key renamed (issue 24, point 5)", file: "overlay", code: "CW102",
			src:  "aproval_policy = \"never\"\n",
			want: "approval_policy = \"never\"\n"},
		{name: "a user-config key in the project gets no rename", file: "overlay", code: "CW102",
			src: "[auto_review]\n", noFixes: true},
		{name: "action case folded", file: "permissions", code: "CW003",
			src:  "[[rules]]\ntool = \"read_file\"\naction = \"Deny\"\n",
			want: "[[rules]]\ntool = \"read_file\"\naction = \"deny\"\n", safe: true},
		{name: "action misspelt", file: "permissions", code: "CW003",
			src:  "[[rules]]\ntool = \"read_file\"\naction = \"alow\"\n",
			want: "[[rules]]\ntool = \"read_file\"\naction = \"allow\"\n"},
		{name: "action block has no certain fix", file: "permissions", code: "CW003",
			src: "[[rules]]\ntool = \"read_file\"\naction = \"block\"\n", noFixes: true},
		{name: "quoted boolean unquoted", file: "permissions", code: "CW003",
			src:  "[[rules]]\ntool = \"exec_shell\"\ncommand = \"ls\"\ncommand_exact = \"true\"\n",
			want: "[[rules]]\ntool = \"exec_shell\"\ncommand = \"ls\"\ncommand_exact = true\n", safe: true},
		{name: "quoted boolean in config.toml", file: "config", code: "CW003",
			src:  "allow_shell = \"False\"\n",
			want: "allow_shell = false\n", safe: true},
		{name: "overlay line without effect removed", file: "overlay", code: "CW100",
			config: "approval_policy = \"never\"\n",
			src:    "model = \"x\"\napproval_policy = \"auto\" # looser\nallow_shell = false\n",
			want:   "model = \"x\"\nallow_shell = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newLintWorld(t, tt.config)
			path := map[string]string{"permissions": w.permissions, "config": w.config, "overlay": w.overlay}[tt.file]
			src := tt.src
			if tt.file == "config" {
				src = w.configHead + tt.src
			}
			if tt.file == "overlay" {
				w.write(path, "") // the overlay is read only when it exists
			}
			r := w.check(map[string]string{path: src}, nil)
			got := problemsWithCode(r, path, tt.code)
			if len(got) != 1 {
				t.Fatalf("want one %s, got %+v (all: %+v)", tt.code, got, r.File(path))
			}
			fixes := got[0].Fixes
			if tt.noFixes {
				if len(fixes) != 0 {
					t.Fatalf("want no fix, got %+v", fixes)
				}
				return
			}
			if len(fixes) != 1 {
				t.Fatalf("want one fix, got %+v", fixes)
			}
			want := tt.want
			if tt.file == "config" {
				want = w.configHead + tt.want
			}
			if after := applyFix(src, fixes[0]); after != want {
				t.Errorf("after %q:\n%s\nwant:\n%s", fixes[0].Title, after, want)
			}
			if fixes[0].Safe != tt.safe {
				t.Errorf("safe = %v, want %v", fixes[0].Safe, tt.safe)
			}
		})
	}
}

// TestGitHubEscaping follows GitHub's workflow-command rules: %, CR and LF
// in the message; also : and , in a property (the file name).
func TestGitHubEscaping(t *testing.T) {
	var b strings.Builder
	WriteGitHub(&b, Report{Files: []FileReport{{Path: "a:b,c%.toml", Findings: []Finding{{Code: "CW001", Severity: problem.Error, Message: "50% bad\r\nnext: line, more"}}}}, Against: release.Default("none")})
	want := "::notice title=codewhale-ls::checking against Codewhale 0.10.1 behaviour (default: none)\n" +
		"::error file=a%3Ab%2Cc%25.toml,line=1,col=1,endLine=1,endColumn=1,title=CW001::50%25 bad%0D%0Anext: line, more\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

// The loaders' CW002 for a key the user's release removed
// (docs/codewhale/releases/0.10.1.md D.9, reported by gate/config) gets a
// fix that deletes the key's line, not a rename.
func TestRemovedKeyFix(t *testing.T) {
	src := "model = \"x\"\n\n[tui]\nterminal_probe_timeout_ms = 100 # probe\ntheme = \"dark\"\n"
	w := newLintWorld(t, "")
	r := w.check(map[string]string{w.config: src}, nil)
	f := r.File(w.config)
	start := strings.Index(src, "terminal_probe_timeout_ms")
	f.Problems = []problem.Problem{
		{Code: "CW002", Severity: problem.Warning, Span: problem.Span{Start: start, End: start + len("terminal_probe_timeout_ms")},
			Message: "Codewhale 0.10.1 removed [tui] terminal_probe_timeout_ms: it is ignored and no longer does anything"},
		{Code: "CW002", Severity: problem.Warning, Span: problem.Span{Start: 0, End: len("model")},
			Message: "Codewhale silently ignores the unknown key `model`"},
	}
	addLoaderFixes(nil, map[string]*FileResult{w.config: f})
	if len(f.Problems[0].Fixes) != 1 {
		t.Fatalf("removed key: fixes %+v", f.Problems[0].Fixes)
	}
	if after, want := applyFix(src, f.Problems[0].Fixes[0]), "model = \"x\"\n\n[tui]\ntheme = \"dark\"\n"; after != want {
		t.Errorf("after %q:\n%s\nwant:\n%s", f.Problems[0].Fixes[0].Title, after, want)
	}
	if len(f.Problems[1].Fixes) != 0 {
		t.Errorf("an unknown key without a suggestion got %+v", f.Problems[1].Fixes)
	}
}
