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
	for _, editor := range []struct {
		name string
		find func(*testing.T) neovim
	}{
		{"debian 0.7", hostNeovim},
		{"sid 0.12", sidNeovim},
	} {
		t.Run(editor.name, func(t *testing.T) {
			nv := editor.find(t)
			for _, a := range []*agentcli.Agent{agentcli.Claude, agentcli.Codex} {
				t.Run(a.Name, func(t *testing.T) {
					s := agentcli.NewSession(t, a)
					// A repository with no policy file of its own: the policy
					// is the user's (~/.codewhale, the Ask posture).
					if err := os.RemoveAll(filepath.Join(s.Repo, ".codewhale")); err != nil {
						t.Fatal(err)
					}
					s.WriteFile(filepath.Join(s.Repo, "src", "main.rs"), "fn main() {\n}\n")
					s.Install(s.Repo, "--user")

					ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
					defer cancel()
					tm := startAgentsNeovim(t, ctx, nv, s)
					waitNvimServes(t, s.Root, s.Repo)

					for _, answer := range []string{"deny", "esc", "once", "deadline"} {
						if answer == "deadline" {
							// The hook answers 5 s before the agent's timeout and
							// the server 2 s before that: the card waits 5 s.
							setNvimAgentHookTimeout(t, s, 12)
						}
						target := "edited-" + answer + ".txt"
						started := time.Now()
						r, screen := runAgentAnsweringNvim(t, ctx, s, tm, answer, target)
						took := time.Since(started)
						t.Logf("%s: %.1f s; the model was told %q", answer, took.Seconds(), r.Results[0])
						if written := s.Exists(filepath.Join(s.Repo, target)); written != (answer == "once") {
							t.Errorf("%s: %s written = %v; the model was told %q", answer, target, written, r.Results[0])
						}
						// The deny's reason as the server words each way of
						// not approving (approvals/), which the hook passes on.
						if told := map[string]string{"deny": "denied by user", "esc": "dismissed", "deadline": "timed out"}[answer]; told != "" &&
							!(strings.Contains(r.Results[0], "codewhale-ls") && strings.Contains(r.Results[0], told)) {
							t.Errorf("%s: the model was not told Codewhale's deny (%q): %q", answer, told, r.Results[0])
						}
						if answer == "deadline" && took > 60*time.Second {
							t.Errorf("the deadline: the agent waited %v with a 12 s hook timeout", took)
						}
						if answer == "once" {
							saveNvimCard(t, tm, screen, strings.ReplaceAll(editor.name, " ", "-")+"-"+a.Name)
						}
					}
				})
			}
		})
	}
}

// startAgentsNeovim starts nv on the session's repository as a person
// does (user_init.lua, on src/main.rs), with the session's home, so its
// server decides by the same policy as the agent's hook, and the session's
// XDG_RUNTIME_DIR, where the hook looks for the approval socket. In a
// chroot, the session's root is mounted at the same path.
func startAgentsNeovim(t *testing.T, ctx context.Context, nv neovim, s *agentcli.Session) *tmuxNeovim {
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
	return startUserNeovim(t, ctx, nv, env, s.Repo, 100, 30, "src/main.rs")
}

// runAgentAnsweringNvim runs the agent on `touch target` while a person at the
// Neovim of tm answers the card as answer says ("deny": d, "esc":
// <Esc>, "once": the code of Approve once, "deadline": nothing). It
// returns the agent's run and the screen (with colours) the person
// answered.
func runAgentAnsweringNvim(t *testing.T, ctx context.Context, s *agentcli.Session, tm *tmuxNeovim, answer, target string) (agentcli.Result, string) {
	t.Helper()
	actx, stop := context.WithCancel(ctx)
	type answered struct {
		screen string
		err    error
	}
	done := make(chan answered, 1)
	go func() {
		screen, err := answerNvimCard(actx, tm, answer, target)
		done <- answered{screen, err}
	}()
	var res answered
	finished := false
	defer func() {
		if !finished { // the agent's run failed the test: the person stops
			stop()
			<-done
		}
	}()
	r := s.Run(s.Repo, s.A.Shell("touch "+target))
	res = <-done
	finished = true
	stop()
	if res.err != nil {
		t.Fatalf("%s: %v", answer, res.err)
	}
	return r, res.screen
}

// nvimOnceCode finds the code of "Approve once" on the card.
var nvimOnceCode = regexp.MustCompile(`type ([a-z]{3}) +Approve once`)

// answerNvimCard is the person at the editor: it waits for the card of
// target to be on the screen and take keys, then answers it. It runs
// beside the agent, so it reports its failure instead of ending the test.
func answerNvimCard(ctx context.Context, tm *tmuxNeovim, answer, target string) (string, error) {
	var screen string
	for {
		out, err := tm.cmd("capture-pane", "-p").Output()
		if err != nil {
			return "", fmt.Errorf("capture-pane: %v", err)
		}
		screen = string(out)
		if strings.Contains(screen, "Codewhale approval") && strings.Contains(screen, target) && strings.Contains(screen, "ready: type a code") {
			break
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the card for %s never took keys; the screen:\n%s", target, screen)
		case <-time.After(30 * time.Millisecond):
		}
	}
	colours, _ := tm.cmd("capture-pane", "-p", "-e").Output()
	var keys []string
	switch answer {
	case "deny":
		keys = []string{"d"}
	case "esc":
		keys = []string{"Escape"}
	case "once":
		m := nvimOnceCode.FindStringSubmatch(screen)
		if m == nil {
			return "", fmt.Errorf("no code for Approve once on the card:\n%s", screen)
		}
		keys = strings.Split(m[1], "")
	case "deadline":
		return string(colours), nil
	}
	for _, k := range keys {
		if out, err := tm.cmd("send-keys", k).CombinedOutput(); err != nil {
			return "", fmt.Errorf("send-keys %s: %v\n%s", k, err, out)
		}
		time.Sleep(typing)
	}
	return string(colours), nil
}

// setNvimAgentHookTimeout sets the agent's hook timeout, in its settings and
// in the hook's --timeout, to seconds (`hook install` writes its
// default), and has Codex trust the changed hook again, as a user would.
func setNvimAgentHookTimeout(t *testing.T, s *agentcli.Session, seconds int) {
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

// saveNvimCard keeps the card as a picture for the note
// ($CODEWHALE_SCREENSHOT_DIR, else the test's temporary directory).
func saveNvimCard(t *testing.T, tm *tmuxNeovim, screen, name string) {
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
