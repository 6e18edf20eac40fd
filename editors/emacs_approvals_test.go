//go:build unix

package editors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/nvimtest"
)

// TestEmacsApprovals is issue 27's check of approvals in Emacs 30 (sid's,
// in a chroot), typed into in tmux as a person types: Emacs is opened on a
// source file of a repository with no .codewhale/, which it serves
// (codewhale-serve-repositories), and a real Claude Code (offline against
// the fake model) runs there a shell command Codewhale asks a human about.
// The card appears in Emacs, and what is typed, or not, is what happens
// in the agent: d denies; the code of "once" runs the command; stray
// typing (into the source file as the card arrives, then into the card
// before it has been still: the code's letters, RET, SPC, y, d) approves
// nothing, and d then denies; a minibuffer in use is not taken over (the
// card waits, named in the mode line, and what is typed stays the
// minibuffer's) until it is closed; no answer until the deadline (a 12 s
// hook timeout) is a deny, and the card closes saying it was withdrawn.
// Then hooks run directly: two asks queue (d, then the card's buffer
// killed), and Emacs exiting with a card up denies.
func TestEmacsApprovals(t *testing.T) {
	em := emacsSid(t)
	s := userPolicySession(t, agentcli.Claude)

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tm := startApprovalsEmacs(t, ctx, em, s)
	waitNvimServes(t, s.Root, s.Repo)

	for _, answer := range []string{"deny", "once", "stray", "minibuffer", "deadline"} {
		target := "edited-" + answer + ".txt"
		if answer == "minibuffer" {
			// The person is typing a command when the card arrives.
			tm.typeText("\x1bxcodewhale-st")
			tm.waitScreen("M-x codewhale-st")
		}
		if answer == "deadline" {
			// The hook answers 5 s before the agent's timeout and the
			// server 2 s before that: the card waits 5 s.
			setAgentHookTimeout(t, s, 12)
		}
		started := time.Now()
		r, screen := runClaudeAnsweringEmacs(t, ctx, s, tm, answer, target)
		took := time.Since(started)
		t.Logf("%s: %.1f s; the model was told %q", answer, took.Seconds(), r.Results[0])
		approved := answer == "once"
		if approved {
			saveCard(t, tm, screen, "emacs-30")
		}
		if written := s.Exists(filepath.Join(s.Repo, target)); written != approved {
			t.Errorf("%s: %s written = %v; the model was told %q", answer, target, written, r.Results[0])
		}
		if approved && !strings.Contains(r.Results[0], "touched "+target) {
			t.Errorf("%s: the model was not given the command's output: %q", answer, r.Results[0])
		}
		told := map[string]string{"deny": "denied by user", "stray": "denied by user", "minibuffer": "denied by user", "deadline": "timed out"}[answer]
		if told != "" && !(strings.Contains(r.Results[0], "codewhale-ls") && strings.Contains(r.Results[0], told)) {
			t.Errorf("%s: the model was not told Codewhale's deny (%q): %q", answer, told, r.Results[0])
		}
		if answer == "deadline" {
			if took > 60*time.Second {
				t.Errorf("the deadline: the agent waited %v with a 12 s hook timeout", took)
			}
			// The server withdrew the prompt: the card closed saying so.
			tm.waitScreen("withdrawn")
			if strings.Contains(tm.capture(false), "Codewhale approval:") {
				t.Errorf("the deadline passed, and the card is still on the screen:\n%s", tm.capture(false))
			}
		}
	}

	// Two asks at once queue: the first card says one more waits, d
	// denies it, and the second card, closed by killing its buffer
	// (C-x k RET), is a dismissal, a deny too.
	first := startClaudeHook(t, ctx, s, "touch queued-1.txt")
	tm.waitScreen("Codewhale approval:", "touch queued-1.txt")
	second := startClaudeHook(t, ctx, s, "touch queued-2.txt")
	tm.waitScreen("touch queued-1.txt", "1 more waiting", "ready: type a code")
	tm.typeText("d")
	if v := first(); v.PermissionDecision != "deny" || !strings.Contains(v.PermissionDecisionReason, "denied by user") {
		t.Errorf("the first of two queued asks, d: %+v", v)
	}
	tm.waitScreen("touch queued-2.txt", "ready: type a code")
	tm.typeText("\x18k\n")
	if v := second(); v.PermissionDecision != "deny" || !strings.Contains(v.PermissionDecisionReason, "dismissed") {
		t.Errorf("the second of two queued asks, its card's buffer killed: %+v", v)
	}
	// Emacs exiting with a card up (M-: (kill-emacs), which asks nothing
	// more) is a deny.
	exiting := startClaudeHook(t, ctx, s, "touch exit.txt")
	tm.waitScreen("Codewhale approval:", "touch exit.txt")
	tm.typeText("\x1b:(kill-emacs)\n")
	if v := exiting(); v.PermissionDecision != "deny" {
		t.Errorf("Emacs exited with the card up: %+v", v)
	}
	for _, f := range []string{"queued-1.txt", "queued-2.txt", "exit.txt"} {
		if s.Exists(filepath.Join(s.Repo, f)) {
			t.Errorf("%s was written", f)
		}
	}
}

// hookVerdict is what `codewhale-ls hook claude-code` answered.
type hookVerdict struct{ PermissionDecision, PermissionDecisionReason string }

// startClaudeHook runs the session's `codewhale-ls hook claude-code` on a
// Bash call of command in the repository, as Claude Code would, and
// returns a function waiting for its answer.
func startClaudeHook(t *testing.T, ctx context.Context, s *agentcli.Session, command string) func() hookVerdict {
	t.Helper()
	return startHook(t, ctx, s.Hook, s.Repo, s.BaseEnv(), command)
}

// startHook runs `bin hook claude-code` in dir with env on a Bash call of
// command (permission mode "default": without an editor Claude Code would
// be told to ask its user) and returns a function waiting for its answer.
func startHook(t *testing.T, ctx context.Context, bin, dir string, env []string, command string) func() hookVerdict {
	t.Helper()
	hook := exec.CommandContext(ctx, bin, "hook", "claude-code", "--timeout", "60")
	hook.Dir = dir
	hook.Env = env
	event, _ := json.Marshal(map[string]any{
		"session_id": "s1", "cwd": dir, "permission_mode": "default", "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "run"},
	})
	hook.Stdin = bytes.NewReader(event)
	var out bytes.Buffer
	hook.Stdout = &out
	hook.WaitDelay = 5 * time.Second
	if err := hook.Start(); err != nil {
		t.Fatal(err)
	}
	return func() hookVerdict {
		t.Helper()
		if err := hook.Wait(); err != nil {
			t.Fatalf("the hook on %q: %v\n%s", command, err, out.String())
		}
		var v struct{ HookSpecificOutput hookVerdict }
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("the hook on %q answered %q: %v", command, out.String(), err)
		}
		return v.HookSpecificOutput
	}
}

// startApprovalsEmacs starts Emacs em (emacsSid) as a person does
// (emacs -nw, their init.el requiring codewhale from a copy of
// editors/emacs), in the session's repository on src/main.rs, with the
// session's home and its XDG_RUNTIME_DIR, where the hook looks for the
// approval socket; the session's root is mounted at the same path in
// the chroot.
func startApprovalsEmacs(t *testing.T, ctx context.Context, em neovim, s *agentcli.Session) *tmuxNeovim {
	t.Helper()
	ed := filepath.Join(s.Root, "emacs")
	copyFile(t, s.Hook, filepath.Join(ed, "bin", "codewhale-ls"), 0o755)
	copyFile(t, filepath.Join("emacs", "codewhale.el"), filepath.Join(ed, "lisp", "codewhale.el"), 0o644)
	initFile := filepath.Join(ed, "init.el")
	s.WriteFile(initFile, fmt.Sprintf(`;; A user's init.el: codewhale from a folder, nothing else.
(setq make-backup-files nil auto-save-default nil create-lockfiles nil)
(add-to-list 'load-path %q)
(setq codewhale-program %q)
(require 'codewhale)
`, filepath.Join(ed, "lisp"), filepath.Join(ed, "bin", "codewhale-ls")))
	nvimBindMount(t, s.Root, filepath.Join(em.chroot, s.Root))
	env := []string{"HOME=" + s.Home, "XDG_RUNTIME_DIR=" + s.Root, "LANG=C.UTF-8"}
	tm := startTmuxPane(t, ctx, ed, 100, 30, env, em.chroot, "/usr/bin/env", "-C", s.Repo, em.path, "-nw", "-Q", "-l", initFile, "src/main.rs")
	tm.waitScreen("fn main() {")
	return tm
}

// runClaudeAnsweringEmacs runs Claude on touchCommand(target) while a
// person at Emacs answers its card as answer says (emacsPerson); it
// returns the run and the screen (with colours) the person answered.
func runClaudeAnsweringEmacs(t *testing.T, ctx context.Context, s *agentcli.Session, tm *tmuxNeovim, answer, target string) (agentcli.Result, string) {
	t.Helper()
	at := func(ctx context.Context, tm *tmuxNeovim, answer, target string) (string, error) {
		screen, err := emacsPerson(ctx, tm, answer, target)
		if err != nil && ctx.Err() == nil {
			// Emacs ends, so the hook is denied and the agent ends at
			// once: the test then says what the person saw.
			tm.cmd("kill-server").Run()
		}
		return screen, err
	}
	return runAgentWithPerson(t, ctx, s, tm, at, answer, target)
}

// emacsPerson is the person at Emacs while the agent runs. It waits for
// the card of target, then: "deny" types d once the card is ready;
// "once" types the code of Approve once; "stray" types into the source
// file as the card arrives, then into the card before it has been still,
// checks nothing was answered, then types d; "minibuffer" checks the
// card waits (named in the mode line) while M-x is being typed, finishes
// typing, leaves the minibuffer with C-g, then types d on the card;
// "deadline" types nothing.
func emacsPerson(ctx context.Context, tm *tmuxNeovim, answer, target string) (string, error) {
	var screen string
	wait := func(what string, ok func(string) bool) error {
		for {
			out, err := tm.cmd("capture-pane", "-p").Output()
			if err == nil {
				screen = string(out)
				if ok(screen) {
					return nil
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s never came while the agent ran; the screen:\n%s", what, screen)
			case <-time.After(30 * time.Millisecond):
			}
		}
	}
	card := func(s string) bool { return strings.Contains(s, "Codewhale approval:") && strings.Contains(s, target) }
	ready := func(s string) bool { return card(s) && strings.Contains(s, "ready: type a code") }
	switch answer {
	case "deadline":
		return "", wait("the card", card)
	case "minibuffer":
		if err := wait("the mode line's word", func(s string) bool { return strings.Contains(s, "Codewhale: approval waiting") }); err != nil {
			return "", err
		}
		if card(screen) {
			return "", fmt.Errorf("the card was shown while the minibuffer was in use:\n%s", screen)
		}
		if err := tm.sendText("atus"); err != nil {
			return "", err
		}
		// Past the quiet period: the card still does not take the keys.
		time.Sleep(1500 * time.Millisecond)
		if err := wait("the minibuffer's text typed whole", func(s string) bool { return strings.Contains(s, "M-x codewhale-status") }); err != nil {
			return "", err
		}
		if card(screen) {
			return "", fmt.Errorf("the card was shown while the minibuffer was in use:\n%s", screen)
		}
		if out, err := tm.cmd("send-keys", "C-g").CombinedOutput(); err != nil {
			return "", fmt.Errorf("send-keys C-g: %v\n%s", err, out)
		}
	case "stray":
		// Typing on in the source file from before the card arrives:
		// Emacs is never idle, so the keys stay the file's, the card's
		// code, RET, SPC and y among them.
		for !card(screen) {
			if err := tm.sendText("stray y \n"); err != nil {
				return "", err
			}
			if out, err := tm.cmd("capture-pane", "-p").Output(); err == nil {
				screen = string(out)
			}
			if ctx.Err() != nil {
				return "", fmt.Errorf("no card while typing in the file; the screen:\n%s", screen)
			}
		}
		// Emacs has not been idle since before the card came: it is
		// shown, and reads nothing.
		if !strings.Contains(screen, "not reading keys") {
			return "", fmt.Errorf("the card took keys while the person typed in the file:\n%s", screen)
		}
		once, _, _ := codesOf(screen)
		if once == "" {
			return "", fmt.Errorf("no code of Approve once on the card:\n%s", screen)
		}
		if err := tm.sendText("// " + once + " y \n"); err != nil {
			return "", err
		}
		if err := wait("the stray typing in the file", func(s string) bool { return strings.Contains(s, "// "+once+" y") }); err != nil {
			return "", err
		}
		// Then into the card, once it has the keys, before it is still.
		if err := wait("the card taking keys", func(s string) bool { return strings.Contains(s, "keys ignored until") }); err != nil {
			return "", err
		}
		if err := tm.sendText(once + "\n y" + once + "d" + once); err != nil {
			return "", err
		}
		if err := wait("the card, unanswered", ready); err != nil {
			return "", err
		}
	}
	if err := wait("a card ready for keys", ready); err != nil {
		return "", err
	}
	once, _, _ := codesOf(screen)
	keys := map[string]string{"deny": "d", "once": once, "stray": "d", "minibuffer": "d"}[answer]
	if keys == "" {
		return "", fmt.Errorf("no key to %s the card:\n%s", answer, screen)
	}
	colours, _ := tm.cmd("capture-pane", "-p", "-e").Output()
	return string(colours), tm.sendText(keys)
}

// TestEmacsApprovalsLspMode is the approvals of lsp-mode's users, in
// Emacs 30 in batch with Debian's lsp-mode (testdata/emacs/approvals.el):
// two hooks' asks in the workspace lsp-mode serves queue, oldest first,
// and the answers go back through lsp-mode: Deny is the first hook's
// deny, killing the second card's buffer its dismissal.
func TestEmacsApprovalsLspMode(t *testing.T) {
	w := emacsWorld(t)
	w.shareWithHost(t) // the hooks run here, in the paths Emacs sees
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	emacs := exec.CommandContext(ctx, "chroot", append([]string{w.nv.chroot, w.nv.path, "--batch"}, emacsArgs(w, "approvals.el")...)...)
	emacs.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, w.env("lsp-mode")...)
	emacs.WaitDelay = 5 * time.Second
	var output bytes.Buffer
	emacs.Stdout, emacs.Stderr = &output, &output
	if err := emacs.Start(); err != nil {
		t.Fatal(err)
	}
	ended := false
	defer func() {
		if !ended {
			cancel()
			emacs.Wait()
		}
	}()
	home := w.guest(filepath.Join(w.dir, "home"))
	workspace := filepath.Join(home, ".codewhale") // the home's permissions.toml's workspace
	waitNvimServes(t, home, workspace)
	hook := func(command string) func() hookVerdict {
		return startHook(t, ctx, w.guest(filepath.Join(w.dir, "bin", "codewhale-ls")), workspace,
			[]string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_RUNTIME_DIR=" + home, "CODEWHALE_HOME=" + workspace}, command)
	}
	first := hook("touch lsp-1.txt")
	// The second asks once the first waits, so that their order is known.
	time.Sleep(500 * time.Millisecond)
	second := hook("touch lsp-2.txt")
	if v := first(); v.PermissionDecision != "deny" || !strings.Contains(v.PermissionDecisionReason, "denied by user") {
		t.Errorf("the first ask, denied on its card: %+v", v)
	}
	if v := second(); v.PermissionDecision != "deny" || !strings.Contains(v.PermissionDecisionReason, "dismissed") {
		t.Errorf("the second ask, its card's buffer killed: %+v", v)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "hooks-done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := emacs.Wait()
	ended = true
	if err != nil {
		t.Fatalf("emacs approvals.el: %v\n%s", err, output.String())
	}
	var res struct {
		Queued    []string
		FirstCard []string `json:"first_card"`
		Left      int
	}
	if err := nvimtest.ReadResults(filepath.Join(w.dir, "results.json"), &res); err != nil {
		t.Fatalf("approvals.el: %v\noutput:\n%s", err, output.String())
	}
	if len(res.Queued) != 2 || !strings.Contains(res.Queued[0], "lsp-1.txt") || !strings.Contains(res.Queued[1], "lsp-2.txt") || res.Left != 0 {
		t.Errorf("queued %q, %d left after both answers", res.Queued, res.Left)
	}
	if card := strings.Join(res.FirstCard, "\n"); !strings.Contains(card, "touch lsp-1.txt") || !strings.Contains(card, "1 more waiting") ||
		!strings.Contains(card, "Deny") || !strings.Contains(card, "asked by claude-code") {
		t.Errorf("the first card:\n%s", card)
	}
}

// TestEmacsServesRepositories is issue 20's serving of every repository
// in Emacs 30 (testdata/emacs/approvals.el "serve"): visiting any file of
// a git work tree starts codewhale-ls there, so agents' hooks find this
// Emacs; a second file and a policy file of it use that same server;
// neither the home (a work tree here) nor a file outside any work tree is
// served, nor a repository visited while codewhale-serve-repositories
// was nil.
func TestEmacsServesRepositories(t *testing.T) {
	w := emacsWorld(t)
	for _, repo := range []string{"r1", "r2", "home"} {
		w.write(t, filepath.Join(w.dir, repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	w.write(t, filepath.Join(w.dir, "r1", "src", "a.rs"), "fn a() {}\n")
	w.write(t, filepath.Join(w.dir, "r2", "src", "b.rs"), "fn b() {}\n")
	w.write(t, filepath.Join(w.dir, "r2", "src", "c.rs"), "fn c() {}\n")
	w.write(t, filepath.Join(w.dir, "r2", ".codewhale", "config.toml"), "# project overlay\n")
	w.write(t, filepath.Join(w.dir, "home", "notes.txt"), "notes\n")
	w.write(t, filepath.Join(w.dir, "outside", "x.txt"), "x\n")
	var res struct {
		R1Served           bool `json:"r1_served"`
		Served             []string
		PolicyServer       string `json:"policy_server"`
		ServersAfterPolicy int    `json:"servers_after_policy"`
	}
	emacsBatch(t, w, "approvals.el", "serve", &res)
	r2 := w.guest(filepath.Join(w.dir, "r2"))
	if res.R1Served || len(res.Served) != 1 || res.Served[0] != r2 {
		t.Errorf("served %q (r1 served: %v), want only %s", res.Served, res.R1Served, r2)
	}
	if res.PolicyServer != r2 || res.ServersAfterPolicy != 1 {
		t.Errorf("r2's policy file is served by %q, %d servers in all; want r2's one server", res.PolicyServer, res.ServersAfterPolicy)
	}
}

// TestEmacsApprovalCard is the card's text and codes in Emacs 30 in
// batch (testdata/emacs/approvals.el "card"), from prompts written there:
// what a server left invisible is escaped again (a second line of
// defence), the server's own escapes are shown as they are, line by line;
// Deny comes first, and is added where a prompt has none; every other
// choice gets three letters of the code alphabet, their first letters
// all different, and the codes vary.
func TestEmacsApprovalCard(t *testing.T) {
	w := emacsWorld(t)
	var res struct {
		Visible string
		Body    []string
		Choices []string
		NoDeny  []string `json:"no_deny"`
		Codes   [][]string
	}
	emacsBatch(t, w, "approvals.el", "card", &res)
	if want := "a⟪U+202E⟫b⟪U+200B⟫c⟪U+0009⟫q⏎r⟪byte 0x80⟫"; res.Visible != want {
		t.Errorf("visible: %q, want %q", res.Visible, want)
	}
	body := strings.Join(res.Body, "\n")
	for _, want := range []string{"command (2 lines, 1 invisible or non-ASCII character shown as ⟪…⟫):\n  touch x⏎\n  echo ⟪RLO U+202E⟫evil\n",
		"Reason: Tool execution requires approval\nLayer 8\nWorkspace: /w",
		"\"Always allow in this repo\" appends to permissions.toml:\n    [[rules]]\n    tool = \"exec_shell\""} {
		if !strings.Contains(body, want) {
			t.Errorf("the card's text lacks %q:\n%s", want, body)
		}
	}
	if strings.Join(res.Choices, " ") != "deny once always" || strings.Join(res.NoDeny, " ") != "deny once" {
		t.Errorf("choices in the order %q and, without a Deny, %q; want Deny first", res.Choices, res.NoDeny)
	}
	seen := map[string]bool{}
	for _, codes := range res.Codes {
		if len(codes) != 3 {
			t.Fatalf("codes %q for three choices besides Deny", codes)
		}
		first := map[byte]bool{}
		for _, c := range codes {
			if len(c) != 3 || strings.Trim(c, "bcfhmnprstvwxz") != "" || first[c[0]] {
				t.Errorf("codes %q: each three letters of bcfhmnprstvwxz, first letters different", codes)
			}
			first[c[0]] = true
			seen[c] = true
		}
	}
	if len(seen) < 100 {
		t.Errorf("%d different codes in %d draws", len(seen), 3*len(res.Codes))
	}
}
