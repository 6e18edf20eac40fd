//go:build unix

package editors_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
)

// TestNeovimRealAgents is issue 25's check for Neovim 0.7.2 and 0.12.x:
// Neovim is opened, as a person opens it, on a source file of a
// repository with no .codewhale/, and a real Claude Code and a real Codex
// (internal/agentcli, offline against the fake model) run a shell
// command there that Codewhale asks a human about. The card appears in
// Neovim, and what is typed into it, or not, is what happens in the
// agent: d (Deny) and <Esc> leave the file unwritten and tell the model
// the deny; the code of "once" runs the command; no answer until the
// deadline (a 12 s hook timeout) is a deny too. One Neovim per agent and
// Neovim, every call in it.
func TestNeovimRealAgents(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		for _, a := range []*agentcli.Agent{agentcli.Claude, agentcli.Codex} {
			t.Run(a.Name, func(t *testing.T) {
				s := userPolicySession(t, a)

				ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
				defer cancel()
				tm := startAgentsNeovim(t, ctx, nv, s)
				waitNvimServes(t, s.Root, s.Repo)

				for _, answer := range []string{"deny", "esc", "once", "deadline"} {
					if answer == "deadline" {
						// The hook answers 5 s before the agent's timeout and
						// the server 2 s before that: the card waits 5 s.
						setAgentHookTimeout(t, s, 12)
					}
					target := "edited-" + answer + ".txt"
					started := time.Now()
					r, screen := runAgentAnswering(t, ctx, s, tm, answer, target)
					took := time.Since(started)
					t.Logf("%s: %.1f s; the model was told %q", answer, took.Seconds(), r.Results[0])
					checkAgentAnswered(t, s, answer, target, r, took)
					if answer == "once" {
						saveCard(t, tm, screen, nv.label+"-"+a.Name)
					}
				}
			})
		}
	})
}

// startAgentsNeovim starts nv on the session's repository as a person
// does (user_init.lua, on src/main.rs; extraEnv adds to its environment,
// e.g. CWLS_SETUP), with the session's home, so its
// server decides by the same policy as the agent's hook, and the session's
// XDG_RUNTIME_DIR, where the hook looks for the approval socket. In a
// chroot, the session's root is mounted at the same path.
func startAgentsNeovim(t *testing.T, ctx context.Context, nv neovim, s *agentcli.Session, extraEnv ...string) *tmuxNeovim {
	t.Helper()
	ed := filepath.Join(s.Root, "nvim")
	copyFile(t, s.Hook, filepath.Join(ed, "bin", "codewhale-ls"), 0o755)
	copyTree(t, "nvim", filepath.Join(ed, "plugin"))
	copyTree(t, filepath.Join("testdata", "nvim"), filepath.Join(ed, "scripts"))
	if nv.chroot != "" {
		nvimBindMount(t, s.Root, filepath.Join(nv.chroot, s.Root))
	}
	env := []string{"HOME=" + s.Home, "XDG_RUNTIME_DIR=" + s.Root,
		"XDG_CACHE_HOME=" + filepath.Join(ed, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(ed, "config"),
		"XDG_DATA_HOME=" + filepath.Join(ed, "data"), "XDG_STATE_HOME=" + filepath.Join(ed, "state"),
		"CWLS_BIN=" + filepath.Join(ed, "bin", "codewhale-ls"), "CWLS_PLUGIN=" + filepath.Join(ed, "plugin"), "CWLS_DIR=" + ed}
	return startUserNeovim(t, ctx, nv, append(env, extraEnv...), s.Repo, 100, 30, "src/main.rs")
}

// touchCommand is the shell call every agent test makes: it writes
// target, so whether it ran shows on disk, and prints, so the model is
// seen to get the command's output.
func touchCommand(target string) string { return "touch " + target + " && echo touched " + target }

// runAgentAnswering runs the agent on touchCommand(target) (or on script,
// when given) while a person at the card in the tmux pane tm (Neovim's,
// or the approval console's) answers it as answer says ("deny": d,
// "esc": <Esc>, "once": the code of Approve once, "session": the code
// of Approve for session, "always": the code of Always allow, "stray":
// typing as the card arrives, the card's own codes among it, then the
// code of once; "deadline":
// nothing). It returns the agent's run and the screen (with colours) the
// person answered. A run that ends with no card for target taking keys
// fails the test.
func runAgentAnswering(t *testing.T, ctx context.Context, s *agentcli.Session, tm *tmuxNeovim, answer, target string, script ...fakemodel.Step) (agentcli.Result, string) {
	t.Helper()
	return runAgentWithPerson(t, ctx, s, tm, answerCard, answer, target, script...)
}

// person is someone at an editor's screen tm while an agent runs: they
// wait for the card of target and answer it as answer says, returning
// the screen they answered; beside the agent, they report a failure
// instead of ending the test.
type person func(ctx context.Context, tm *tmuxNeovim, answer, target string) (string, error)

// runAgentWithPerson is runAgentAnswering with the person at the screen
// given (answerCard for Neovim and the console, emacsPerson for Emacs).
func runAgentWithPerson(t *testing.T, ctx context.Context, s *agentcli.Session, tm *tmuxNeovim, at person, answer, target string, script ...fakemodel.Step) (agentcli.Result, string) {
	t.Helper()
	if len(script) == 0 {
		script = []fakemodel.Step{s.A.Shell(touchCommand(target))}
	}
	actx, stop := context.WithCancel(ctx)
	type answered struct {
		screen string
		err    error
	}
	done := make(chan answered, 1)
	go func() {
		screen, err := at(actx, tm, answer, target)
		done <- answered{screen, err}
	}()
	finished := false
	defer func() {
		if !finished { // the agent's run failed the test: the person stops
			stop()
			<-done
		}
	}()
	r := s.Run(s.Repo, script...)
	// The agent ended: a card not answered by now never came, and the
	// person stops looking.
	stop()
	res := <-done
	finished = true
	if res.err != nil {
		t.Fatalf("%s (%s asked to %s): %v", answer, s.A.Name, touchCommand(target), res.err)
	}
	return r, res.screen
}

// answerCard is the person at the card: it waits for the card of target
// to be on the screen and take keys, then answers it. It runs beside the
// agent, so it reports its failure instead of ending the test.
func answerCard(ctx context.Context, tm *tmuxNeovim, answer, target string) (string, error) {
	strayTyped := answer != "stray"
	var screen string
	for {
		out, err := tm.cmd("capture-pane", "-p").Output()
		if err != nil && ctx.Err() == nil {
			return "", fmt.Errorf("capture-pane: %v", err)
		}
		if err == nil {
			screen = string(out)
		}
		shown := strings.Contains(screen, "Codewhale approval") && strings.Contains(screen, target)
		if shown && !strayTyped {
			// A person typing elsewhere as the card arrives: nothing of
			// it, the card's codes included, answers the card.
			once, session, always := codesOf(screen)
			if err := tm.sendText("42 let obj = 1; jjj yy dd q yes " + once + " " + session + always + " d" + once + "\x1b" + once); err != nil {
				return "", err
			}
			strayTyped = true
			continue
		}
		if shown && strings.Contains(screen, "ready: type a code") {
			break
		}
		select {
		case <-ctx.Done():
			if answer == "stray" && strayTyped {
				return "", fmt.Errorf("the card for %s left the screen after stray typing, before its code was typed; the screen:\n%s", target, screen)
			}
			return "", fmt.Errorf("no card for %s took keys while the agent ran; the screen:\n%s", target, screen)
		case <-time.After(30 * time.Millisecond):
		}
	}
	colours, _ := tm.cmd("capture-pane", "-p", "-e").Output()
	once, session, always := codesOf(screen)
	keys := map[string]string{"deny": "d", "esc": "\x1b", "once": once, "stray": once, "session": session, "always": always, "deadline": ""}[answer]
	if answer != "deadline" && keys == "" {
		return "", fmt.Errorf("no key to %s the card:\n%s", answer, screen)
	}
	return string(colours), tm.sendText(keys)
}

// checkAgentAnswered checks what the agent did after the card's answer:
// target is written only when the card was approved, the model was told
// the command's output then, and Codewhale's deny in the server's words
// for each way of not approving (approvals/) otherwise; no answer is a
// deny by the hook's own deadline, long before the agent would give up
// on its hook (a 12 s timeout).
func checkAgentAnswered(t *testing.T, s *agentcli.Session, answer, target string, r agentcli.Result, took time.Duration) {
	t.Helper()
	approved := answer == "once" || answer == "stray" || answer == "session"
	if written := s.Exists(filepath.Join(s.Repo, target)); written != approved {
		t.Errorf("%s: %s written = %v; the model was told %q", answer, target, written, r.Results[0])
	}
	if approved && !strings.Contains(r.Results[0], "touched "+target) {
		t.Errorf("%s: the model was not given the command's output: %q", answer, r.Results[0])
	}
	if told := map[string]string{"deny": "denied by user", "esc": "dismissed", "deadline": "timed out"}[answer]; told != "" &&
		!(strings.Contains(r.Results[0], "codewhale-ls") && strings.Contains(r.Results[0], told)) {
		t.Errorf("%s: the model was not told Codewhale's deny (%q): %q", answer, told, r.Results[0])
	}
	// The hook's own bound decided, so the hook answered: the agent did
	// not give up on it.
	if answer == "deadline" && !strings.Contains(r.Results[0], "the bound set by the deadline of the caller (an agent's hook timeout)") {
		t.Errorf("the deadline: the model was not told the hook's deadline decided: %q", r.Results[0])
	}
	if answer == "deadline" && took > 60*time.Second {
		t.Errorf("the deadline: the agent waited %v with a 12 s hook timeout", took)
	}
}

// setAgentHookTimeout sets the agent's hook timeout, in its settings and
// in the hook's --timeout, to seconds (`hook install` writes its
// default), and has Codex trust the changed hook again, as a user would.
func setAgentHookTimeout(t *testing.T, s *agentcli.Session, seconds int) {
	t.Helper()
	flag := regexp.MustCompile(`--timeout \d+`)
	setting := regexp.MustCompile(`("timeout"\s*:\s*|timeout\s*=\s*)\d+`)
	changed := 0
	err := filepath.WalkDir(s.Home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".toml")) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte("codewhale-ls hook "+s.A.Name)) {
			return err
		}
		b = flag.ReplaceAll(b, []byte(fmt.Sprintf("--timeout %d", seconds)))
		b = setting.ReplaceAll(b, []byte(fmt.Sprintf("${1}%d", seconds)))
		changed++
		return os.WriteFile(path, b, 0o644)
	})
	if err != nil || changed == 0 {
		t.Fatalf("no hook settings of %s to change under %s (%v)", s.A.Name, s.Home, err)
	}
	if s.A.AfterInstall != nil {
		s.A.AfterInstall(s)
	}
}

// saveCard keeps the card (screen, with colours) as a picture for the
// note ($CODEWHALE_SCREENSHOT_DIR, else the test's temporary directory).
func saveCard(t *testing.T, tm *tmuxNeovim, screen, name string) {
	t.Helper()
	var img bytes.Buffer
	if err := png.Encode(&img, renderTerminal(screen, tm.cols, tm.rows)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(screenshotDir(t), "agent-card-"+name+".png")
	if err := os.WriteFile(out, img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the card: %s", out)
}

// userPolicySession is agent's session in a repository with no policy
// file of its own, so the policy is the user's (~/.codewhale, the Ask
// posture), with src/main.rs for the editor to open and the agent's hook
// installed for the user.
func userPolicySession(t *testing.T, agent *agentcli.Agent) *agentcli.Session {
	t.Helper()
	s := agentcli.NewSession(t, agent)
	if err := os.RemoveAll(filepath.Join(s.Repo, ".codewhale")); err != nil {
		t.Fatal(err)
	}
	s.WriteFile(filepath.Join(s.Repo, "src", "main.rs"), "fn main() {\n}\n")
	s.Install(s.Repo, "--user")
	return s
}
