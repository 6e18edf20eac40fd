package rpc

import (
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/agents/install"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// TestOtherAgentsUnhookedLive: the editor shows CW700 on another agent's
// settings file that does not run codewhale-ls's hook, as `check` does,
// and the warning goes away when the hook is installed on disk (leaving,
// for a project-only hook, a note).
func TestOtherAgentsUnhookedLive(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	// A repository with policy files of its own is linted from the start
	// (one without is only served: TestFolderWithoutPolicyFiles).
	w.write(t, w.overlayPath(), "")
	settings := filepath.Join(w.ws, ".claude", "settings.json")
	w.write(t, settings, "{\n  \"permissions\": {\"allow\": [\"Bash(npm test)\"]}\n}\n")
	s := newSession(t, w, Options{})
	s.initializeWith(protocol.ClientCapabilities{}, nil)
	u := uri.File(settings)
	s.waitFor(u, "CW700", func(p *protocol.PublishDiagnosticsParams) bool {
		return len(p.Diagnostics) == 1 && hasCode(p.Diagnostics, string(problem.AgentUnhooked))
	})
	claude, err := install.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hooked, err := claude.Install(src, true, filepath.Join(filepath.Dir(self), "codewhale-ls"))
	if err != nil {
		t.Fatal(err)
	}
	renameOver(t, settings, string(hooked))
	// Hooked in the project only: the warning gives way to the note that
	// a session started in a subdirectory does not read the file
	// (docs/diagnostics.md#cw700).
	s.waitFor(u, "no CW700 warning once the hook is installed", func(p *protocol.PublishDiagnosticsParams) bool {
		return len(p.Diagnostics) == 1 && p.Diagnostics[0].Severity == protocol.DiagnosticSeverityInformation
	})
	s.shutdown()
}
