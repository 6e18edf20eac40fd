package diagnostics

import (
	"slices"
	"strings"
	"testing"
)

// The user-config lints of docs/codewhale/pipeline.md §11 that say a setting does less
// than it reads: each case lists the text every problem of the code
// underlines.
func TestConfigLints(t *testing.T) {
	tests := []struct {
		name, config, code string
		want               []string
		message, fix       string
		noFix              bool
	}{
		{
			name:   "auto-review tool with a semantic name",
			config: "[[auto_review.block]]\ntool = \"exec_shell\"\n",
			code:   "CW604", want: []string{`"exec_shell"`},
			message: `agents call "bash"`, fix: `"bash"`,
		},
		{
			name:   "auto-review tool with MCP double underscores, under every alias",
			config: "[[auto_review.block]]\ntool = \"mcp__github__merge\"\n[[auto_review.allow]]\ntool_name = \"mcp__fs__read\"\n[[auto_review.allow]]\ntoolName = \"mcp_fs_list\"\n",
			code:   "CW604", want: []string{`"mcp__github__merge"`, `"mcp__fs__read"`},
			message: `"mcp_github_merge" would`, fix: `"mcp_github_merge"`,
		},
		{
			name:   "auto-review tool written as a pattern: no name would match, so no fix",
			config: "[[auto_review.allow]]\ntool = \"mcp__*\"\naction_kind = \"read\"\n[[auto_review.block]]\ntool = \"exec_?\"\n",
			code:   "CW604", want: []string{`"mcp__*"`, `"exec_?"`},
			message: "without wildcards", noFix: true,
		},
		{
			name:   "auto-review allow rules under a posture locked elsewhere",
			config: "approval_policy = \"on-request\"\n[[auto_review.allow]]\ntool = \"bash\"\n[[auto_review.block]]\ntool = \"File\"\n",
			code:   "CW602", want: []string{"auto_review.allow"},
			message: "locked to Ask",
		},
		{
			name:   "auto-review allow rules in Auto-Review",
			config: "approval_policy = \"auto\"\n[[auto_review.allow]]\ntool = \"bash\"\n",
			code:   "CW602",
		},
		{
			name:   "auto-review allow rules with the posture unlocked",
			config: "[[auto_review.allow]]\ntool = \"bash\"\n",
			code:   "CW602",
		},
		{
			name:   "relative workspace and project keys",
			config: "[workspace.\"repo\"]\nallow_shell = false\n[workspace.\"/abs\"]\nallow_shell = false\n[projects.\".\"]\ntrust_level = \"trusted\"\n[projects.\"~/src/x\"]\ntrust_level = \"trusted\"\n",
			code:   "CW602", want: []string{`"repo"`, `"."`},
			message: "resolves it against the directory it is started in",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newLintWorld(t, tt.config)
			r := w.check(nil, nil)
			src := string(r.File(w.config).Src)
			got := problemsWithCode(r, w.config, tt.code)
			var spans []string
			for _, p := range got {
				spans = append(spans, spanText(src, p.Span))
			}
			if !slices.Equal(spans, tt.want) {
				t.Fatalf("%s spans = %q, want %q\nall: %+v", tt.code, spans, tt.want, r.File(w.config).Problems)
			}
			if len(got) == 0 {
				return
			}
			if !strings.Contains(got[0].Message, tt.message) {
				t.Errorf("message %q does not contain %q", got[0].Message, tt.message)
			}
			if tt.fix != "" && (len(got[0].Fixes) == 0 || got[0].Fixes[0].Edits[0].NewText != tt.fix) {
				t.Errorf("fixes %+v, want one to %s", got[0].Fixes, tt.fix)
			}
			if tt.noFix {
				for _, p := range got {
					if len(p.Fixes) > 0 {
						t.Errorf("%s: fixes %+v, want none", spanText(src, p.Span), p.Fixes)
					}
				}
			}
		})
	}
}
