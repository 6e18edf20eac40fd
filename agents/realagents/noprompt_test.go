package realagents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/editortest"
)

// startEditorThatCannotPrompt is `codewhale-ls serve` for the session's
// repository with a scripted client that declares no way to show a
// prompt, as Helix 25.07 does (docs/editors.md): no
// initializationOptions.approvals and no window.showMessage. The server
// must not serve the repository's approval socket.
func startEditorThatCannotPrompt(t *testing.T, s *agentcli.Session) *editortest.Editor {
	t.Helper()
	server := exec.Command(s.Hook, "serve", "--stdio")
	server.Dir = s.Repo
	server.Env = s.BaseEnv()
	helix := map[string]any{"window": map[string]any{"workDoneProgress": true}}
	return editortest.StartClient(t, server, s.Repo, s.Root, editortest.Client{Capabilities: helix}, editortest.Choice("once"))
}

// With an editor open on the repository that cannot show a prompt, an
// agent's ask takes the next step of the order at once (issue 25, "How it
// is checked"): Claude Code keeps its own ask (in -p mode nobody answers
// it, so the call does not run), Codex, which has no prompt of its own,
// is denied with the console named. The editor is never sent a prompt;
// had the hook waited for one, the call would have been decided by the
// editor's server (a prompt, a dismissal) and logged as its deny.
func TestEditorThatCannotPrompt(t *testing.T) {
	// Claude Code in its default permission mode, where its own ask
	// reaches its user (the harness's bypassPermissions has no ask to
	// keep: the hook denies there, docs/agents.md).
	claude := *agentcli.Claude
	claude.Args = func(s *agentcli.Session, prompt string) []string {
		return []string{"-p", prompt, "--permission-mode", "default"}
	}
	for _, a := range []*agentcli.Agent{&claude, agentcli.Codex} {
		t.Run(a.Name, func(t *testing.T) {
			s := agentcli.NewSession(t, a)
			installUser(t, s)
			e := startEditorThatCannotPrompt(t, s)
			target := filepath.Join(s.Repo, "edited.txt")
			start := time.Now()
			r := s.Run(s.Repo, a.Shell("touch edited.txt"))
			t.Logf("%s: the run took %v; the model was told %q", a.Name, time.Since(start), r.Results[0])
			if s.Exists(target) {
				t.Errorf("edited.txt was written with nobody to approve it; the model was told %q", r.Results[0])
			}
			if p := e.Prompts(); len(p) != 0 {
				t.Errorf("the editor that cannot show prompts was sent %d: %v", len(p), p)
			}
			verdicts := hookVerdicts(t, s)
			if len(verdicts) != 1 {
				t.Fatalf("the hook logged %d verdicts, want 1: %+v", len(verdicts), verdicts)
			}
			v := verdicts[0]
			switch a {
			case &claude:
				if v.Decision != "ask" {
					t.Errorf("the hook answered %s (%s), want Claude Code's own ask", v.Decision, v.Reason)
				}
			case agentcli.Codex:
				// The wording is the hook's (agents/, issue 25's order).
				if v.Decision != "deny" || !strings.Contains(r.Results[0], "codewhale-ls approvals") {
					t.Errorf("the hook answered %s; the model was told %q, which does not name `codewhale-ls approvals`", v.Decision, r.Results[0])
				}
			}
			if len(v.Approval) > 0 && string(v.Approval) != "null" {
				t.Errorf("the verdict came from a prompt: %+v", v)
			}
			if a == &claude {
				// The hook's own time, for the record (not asserted:
				// speed belongs to benchmarks).
				event := fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch edited.txt"},"cwd":%q,"permission_mode":"default","session_id":"s"}`, s.Repo)
				hook := exec.Command(s.Hook, "hook", "claude-code")
				hook.Dir, hook.Env, hook.Stdin = s.Repo, s.BaseEnv(), strings.NewReader(event)
				began := time.Now()
				out, err := hook.Output()
				t.Logf("the hook alone answered in %v: %s (%v)", time.Since(began), out, err)
			}
		})
	}
}

// verdict is a decision log entry (docs/codewhale/contract.md §4).
type verdict struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason"`
	Agent    string          `json:"agent"`
	Approval json.RawMessage `json:"approval"`
}

// hookVerdicts are the decision log's entries the agent's hook logged.
func hookVerdicts(t *testing.T, s *agentcli.Session) []verdict {
	t.Helper()
	f, err := os.Open(filepath.Join(s.Home, ".codewhale", "codewhale-ls", "decisions.jsonl"))
	if err != nil {
		t.Fatalf("the decision log: %v", err)
	}
	defer f.Close()
	var out []verdict
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v verdict
		if json.Unmarshal(sc.Bytes(), &v) == nil && v.Agent == s.A.Name {
			out = append(out, v)
		}
	}
	return out
}
