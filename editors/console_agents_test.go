//go:build unix

package editors_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
)

// TestConsoleRealAgents is issue 25's check of the terminal approval
// console with the real agents: a real Claude Code and a real Codex
// (internal/agentcli, offline against the fake model, the hook installed
// for the user), with no editor, in one repository with no .codewhale/,
// and `codewhale-ls approvals` in a tmux pane typed into as a person
// types. Each agent's shell call asks; its card names the agent; typing
// as the card arrives approves nothing and the code of once then runs the
// command; Esc and d deny, and nobody answering denies at the deadline,
// long before the agent gives up on its hook; each tells the model why. A
// "for this session" given to Claude Code lets Claude's session run the
// command again unasked, not Codex: Codex's same call gets a card of its
// own. One console for every run, as a person keeps one open.
func TestConsoleRealAgents(t *testing.T) {
	tmux := requireTool(t, "tmux", "apt-get install tmux")
	claude := agentcli.NewSession(t, agentcli.Claude)
	codex := agentcli.NewSession(t, agentcli.Codex)
	sameUserAndRepository(claude, codex)
	// A repository with no policy file of its own: the policy is the
	// user's (~/.codewhale, the Ask posture).
	if err := os.RemoveAll(filepath.Join(claude.Repo, ".codewhale")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*agentcli.Session{claude, codex} {
		s.Install(s.Repo, "--user")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// The console as the user starts it, in their environment: the
	// session's XDG_RUNTIME_DIR holds its socket, where the hooks look.
	tm := startShellPane(t, ctx, tmux, claude.Root, "console", claude.BaseEnv(), "exec "+claude.Hook+" approvals")
	tm.waitScreen("codewhale-ls approvals: serving every repository of this user that no editor serves", "console.sock")

	run := func(s *agentcli.Session, answer, target string) agentcli.Result {
		t.Helper()
		// The console's own line for the answer, which says it decided:
		// once more on the screen after the run.
		notice := map[string]string{
			"stray": "approved by you (code typed): Approve once", "esc": "denied by you (dismissed with Esc)",
			"deny": "denied by you (d)", "deadline": "expired, denied: no answer before its deadline",
		}[answer] + " - " + s.A.Name + ": exec_shell: touch "
		before := strings.Count(tm.capture(false), notice)
		started := time.Now()
		r, screen := runAgentAnswering(t, ctx, s, tm, answer, target)
		took := time.Since(started)
		t.Logf("%s, %s: %.1f s; the model was told %q", s.A.Name, answer, took.Seconds(), r.Results[0])
		if asked := "Codewhale approval: exec_shell (asked by " + s.A.Name + ")"; !strings.Contains(stripSGR(screen), asked) {
			t.Errorf("%s, %s: the card does not say %q:\n%s", s.A.Name, answer, asked, stripSGR(screen))
		}
		checkAgentAnswered(t, s, answer, target, r, took)
		waitNotices(t, tm, notice, before+1)
		if answer == "stray" {
			saveCard(t, tm, screen, "console-"+s.A.Name)
		}
		return r
	}
	for _, s := range []*agentcli.Session{claude, codex} {
		for _, answer := range []string{"stray", "esc", "deny"} {
			run(s, answer, s.A.Name+"-"+answer+".txt")
		}
	}

	// Approve for session, given to Claude Code: its next same call
	// runs unasked (else it would wait for a card nobody answers, and be
	// denied at the deadline); Codex's is asked again, and denied.
	target := "session.txt"
	r, _ := runAgentAnswering(t, ctx, claude, tm, "session", target,
		claude.A.Shell(touchCommand(target)), claude.A.Shell(touchCommand(target)))
	for i, res := range r.Results {
		if !strings.Contains(res, "touched "+target) {
			t.Errorf("Claude Code's call %d after Approve for session: the model was told %q", i+1, res)
		}
	}
	tm.waitScreen("approved by you (code typed): Approve for session: this exact call again - claude-code")
	r, _ = runAgentAnswering(t, ctx, codex, tm, "deny", target)
	if !strings.Contains(r.Results[0], "denied by user") {
		t.Errorf("Codex's call after Claude Code's Approve for session: the model was told %q", r.Results[0])
	}

	// Nobody answers: the hook answers 5 s before the agent's timeout
	// and the console 2 s before that, so the card waits 5 s.
	for _, s := range []*agentcli.Session{claude, codex} {
		setAgentHookTimeout(t, s, 12)
		run(s, "deadline", s.A.Name+"-deadline.txt")
	}
}

// sameUserAndRepository has b's agent work in a's home and repository, as
// one person running two agents in one repository does: both hooks ask
// the same console, by the same policy.
func sameUserAndRepository(a, b *agentcli.Session) {
	b.Root, b.Home, b.Repo = a.Root, a.Home, a.Repo
	b.A.Configure(b)
}

// waitNotices waits until the console's screen shows notice n times; a
// minute is the bound of a hang, far above a draw.
func waitNotices(t *testing.T, tm *tmuxNeovim, notice string, n int) {
	t.Helper()
	give := time.Now().Add(time.Minute)
	for {
		screen := tm.capture(false)
		got := strings.Count(screen, notice)
		if got == n {
			return
		}
		if got > n || time.Now().After(give) {
			t.Fatalf("the console shows %q %d times, want %d:\n%s", notice, got, n, screen)
		}
		time.Sleep(30 * time.Millisecond)
	}
}
