// Package realagents runs the real agent CLIs (Claude Code, Gemini CLI,
// Codex, Copilot CLI) headless against our fake model server
// (internal/agentcli), with `codewhale-ls hook AGENT` installed as
// docs/agents.md tells users to, and checks what the hook's verdicts do:
// files a denied call would have made, and what the agent tells the model
// after each call (issue 14, "How it is checked"; the way each CLI runs
// offline is docs/codewhale/deps.md Appendix F).
//
// The CLIs come from .ci/setup-agents.sh. The tests that run them run
// only with CODEWHALE_E2E=1, under which a missing CLI or Node is a
// failure: a user's own claude or codex on PATH does not start them.
package realagents

import (
	"fmt"
	"os"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/childtest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if agentcli.ServeFakeMCPIfAsked() {
		return
	}
	code := childtest.Run(m)
	agentcli.RemoveBuilt()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
