package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// Another agent's call that writes, patches, moves or, in a shell command,
// names an agent's hook or settings files (or the editor settings that
// choose codewhale-ls and the release) is a forced hold: a human decides,
// whatever the rules, session grants or posture say (issue 14 point 4;
// each was allowed, and an allow also skips the agent's own prompt).
// Codewhale's own calls are decided as before.
func TestAnotherAgentsControlFilesNeedAHuman(t *testing.T) {
	allowAll := "[[rules]]\ntool = \"write_file\"\naction = \"allow\"\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"echo\"\naction = \"allow\"\n"
	fx := load(t, files{git: true, release: "0.10.1", permissions: allowAll}).noFatal(t)
	// A repository that ships links into the guarded directories.
	for link, target := range map[string]string{"cfg": ".claude", "ci": ".github"} {
		must(t, os.MkdirAll(filepath.Join(fx.ws, target, "hooks"), 0o755))
		must(t, os.Symlink(target, filepath.Join(fx.ws, link)))
	}
	guarded := []struct {
		tool  string
		input map[string]any
	}{
		{"write_file", map[string]any{"path": "<ws>/.claude/settings.local.json", "content": `{"disableAllHooks": true}`}},
		{"write_file", map[string]any{"path": ".gemini/settings.json", "content": "{}"}},
		{"edit_file", map[string]any{"path": "<ws>/.cursor/hooks.json"}},
		{"write_file", map[string]any{"path": ".github/hooks/off.json", "content": "{}"}},
		{"write_file", map[string]any{"path": ".github/copilot/settings.json", "content": `{"disableAllHooks": true}`}},
		{"write_file", map[string]any{"path": ".codex/hooks.json", "content": "{}"}},
		{"write_file", map[string]any{"path": ".vscode/settings.json", "content": `{"codewhale.server.path": "/tmp/yes"}`}},
		{"write_file", map[string]any{"path": "team.code-workspace", "content": "{}"}},
		{"write_file", map[string]any{"path": ".mcp.json", "content": "{}"}},
		{"write_file", map[string]any{"path": "~/.claude/settings.json", "content": "{}"}},
		{"write_file", map[string]any{"path": "~/go/bin/codewhale-ls", "content": "#!/bin/sh"}},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: notes.md\n*** Move to: .claude/settings.local.json\n@@\n-a\n+b\n*** End Patch\n"}},
		{"exec_shell", map[string]any{"command": `echo '{"disableAllHooks":true}' > .claude/settings.local.json`}},
		{"exec_shell", map[string]any{"command": "echo x > .cl*/settings.local.json"}},
		{"exec_shell", map[string]any{"command": "echo x > .{claude,y}/settings.local.json"}},
		{"exec_shell", map[string]any{"command": "echo x > settings.json", "cwd": "<ws>/.gemini"}},
		{"exec_shell", map[string]any{"command": "echo x > $HOME/.copilot/hooks/off.json"}},
		{"exec_shell", map[string]any{"command": "echo x | tee .vscode/settings.json"}},
		// Found in review: links, unclean paths, brace lists in any part.
		{"write_file", map[string]any{"path": "<ws>/cfg/settings.local.json", "content": "{}"}},
		{"write_file", map[string]any{"path": "ci/hooks/evil.json", "content": "{}"}},
		{"write_file", map[string]any{"path": "<ws>/.github/./hooks/evil.json", "content": "{}"}},
		{"write_file", map[string]any{"path": "<ws>/.github/hooks/../hooks/evil.json", "content": "{}"}},
		{"exec_shell", map[string]any{"command": "echo x > .github/{hooks,x}/a.json"}},
		{"exec_shell", map[string]any{"command": "echo x > .cl{a,b}{u,v}de/settings.json"}},
	}
	for _, c := range guarded {
		input := map[string]any{}
		for k, v := range c.input {
			input[k] = strings.ReplaceAll(v.(string), "<ws>", fx.ws)
		}
		for _, posture := range []session.Posture{session.Ask, session.FullAccess} {
			req := withPosture(fx.call(c.tool, input), posture)
			if d := fx.decide(t, req, Deps{Sessions: approvedFor(c.tool, "exec_shell")}); d.Decision != Allow {
				continue // already held for Codewhale's own reasons: nothing to show
			}
			req.OutsideSandbox = true
			d := fx.decide(t, req, Deps{Sessions: approvedFor(c.tool, "exec_shell")})
			checkTrace(t, d)
			want := Ask
			if posture == session.FullAccess {
				want = Deny // a forced hold Full Access cannot show becomes a deny
			}
			if d.Decision != want || !strings.Contains(d.Reason+d.Trace[len(d.Trace)-1].Detail, "human decides") && d.Decision == Ask {
				t.Errorf("%s %v (%s): %s %q, want %s", c.tool, c.input, posture, d.Decision, d.Reason, want)
			}
		}
	}
	ordinary := []struct {
		tool  string
		input map[string]any
	}{
		{"write_file", map[string]any{"path": "src/main.go", "content": "package main"}},
		{"write_file", map[string]any{"path": ".github/workflows/ci.yml", "content": ""}},
		{"exec_shell", map[string]any{"command": "echo codewhale"}},
		{"exec_shell", map[string]any{"command": "echo hi > notes/claude.txt"}},
		// Read-only commands change nothing they name.
		{"exec_shell", map[string]any{"command": "cat .claude/settings.json"}},
		{"exec_shell", map[string]any{"command": "ls .github"}},
	}
	for _, c := range ordinary {
		req := withPosture(fx.call(c.tool, c.input), session.Ask)
		own := fx.decide(t, req, Deps{})
		req.OutsideSandbox = true
		if d := fx.decide(t, req, Deps{}); d.Decision != own.Decision || d.Reason != own.Reason {
			t.Errorf("%s %v: %s %q, want Codewhale's own %s %q", c.tool, c.input, d.Decision, d.Reason, own.Decision, own.Reason)
		}
	}
}

func TestAgentControlPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/r/.claude/settings.json": true, "/r/.CLAUDE/x": true, "/r/.[c]laude/x": true, "/r/.gemin?/x": true,
		"/r/.github": true, "/r/.github/hooks/a.json": true, "/r/.github/workflows/ci.yml": false,
		"/home/u/.config/Code/User/settings.json": true, "/home/u/.config/gh/hosts.yml": false,
		"/r/bin/codewhale": true, "/r/src/codewhale": false, "/src/codewhale/main.go": false,
		"/r/x.code-workspace": true, "/r/X.CODE-WORKSPACE": true, "/r/.nvim.lua": true, "/r/src/.nvim.lua/x": false,
		"/r/.github/./hooks/a": true, "/r/.github/x/../hooks/a": true, "/h/.local/b?n/codewhale-ls": true,
		"/r/.github/{hooks,x}/a": true, "/r/.cl{a,b}{u,v}de/x": true,
	} {
		if _, got := agentControlPath(p); got != want {
			t.Errorf("agentControlPath(%q) = %v, want %v", p, got, want)
		}
	}
}
