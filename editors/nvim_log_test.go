//go:build unix

package editors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
)

// fakeGitHubToken has the shape of a GitHub token (gate/secrets) and is
// no one's.
const fakeGitHubToken = "ghp_" + "Zq8rT1vW4yB7dF0hK3mN6pS9uX2aC5eG8jL1"

// logCall is one agent call of the log tests (its tool call, which
// writes target) and how the person at Neovim's card answers it.
type logCall struct {
	answer, target string
	step           fakemodel.Step
}

// TestNvimLogReceipts is issue 26's check of the decision log view in
// both Neovims: a real Claude Code's hook asks, through the editor, about
// a call a rule denies (cargo publish) and three shell calls a person at
// Neovim's card answers once, deny (a command carrying a GitHub token)
// and always. The log then has the rule's receipt (its file and line) and
// one per card whose decider is that person, with the answer and where
// (Neovim, as its LSP clientInfo names it); `:Codewhale log` shows them,
// typed as a person types; `f` with decision=deny selects exactly the
// log's denies (the rule's and the person's), agent=codex none; <CR>
// explains one; r reads again; and no token is in the file, the view or
// the explanation.
func TestNvimLogReceipts(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s, tm, ctx := startLogNeovim(t, nv)
		// "Always allow" is offered for a build (make), not for a
		// command Codewhale does not rate safe (touch).
		s.WriteFile(filepath.Join(s.Repo, "Makefile"), "log-always.txt:\n\ttouch $@\n")
		calls := []logCall{
			{"once", "log-once.txt", s.A.Shell(touchCommand("log-once.txt"))},
			{"deny", "log-deny.txt", s.A.Shell("GITHUB_TOKEN=" + fakeGitHubToken + " gh api user > log-deny.txt")},
			{"always", "log-always.txt", s.A.Shell("make log-always.txt")},
		}
		// First a rule's deny (the session's permissions.toml denies
		// cargo publish), no card: the log holds other deciders too.
		if r := s.Run(s.Repo, s.A.Shell("cargo publish")); !strings.Contains(r.Results[0], "cargo publish") {
			t.Errorf("cargo publish: the model was told %q", r.Results[0])
		}
		for _, c := range calls {
			started := time.Now()
			r, _ := runAgentAnswering(t, ctx, s, tm, c.answer, c.target, c.step)
			t.Logf("%s: %.1f s; the model was told %q", c.answer, time.Since(started).Seconds(), r.Results[0])
			if written := s.Exists(filepath.Join(s.Repo, c.target)); written != (c.answer != "deny") {
				t.Errorf("%s: %s written = %v", c.answer, c.target, written)
			}
		}

		logPath := filepath.Join(s.Home, ".codewhale", "codewhale-ls", "decisions.jsonl")
		raw, receipts := readReceipts(t, logPath)
		if bytes.Contains(raw, []byte(fakeGitHubToken)) {
			t.Errorf("the token is in %s", logPath)
		}
		ids := map[string]string{} // answer -> the receipt's id
		for _, c := range calls {
			r := personReceipt(t, receipts, c, "Neovim ")
			if r.Agent != agentcli.Claude.Name || r.Repo != s.Repo || r.ID == "" {
				t.Errorf("%s: the receipt names agent %q, repository %q, id %q", c.answer, r.Agent, r.Repo, r.ID)
			}
			if c.answer != "deny" && !inputHas(r, c.target) {
				t.Errorf("%s: the receipt's input lacks the command: %+v", c.answer, r.Input)
			}
			ids[c.answer] = r.ID
		}
		var rule []approvals.Receipt
		for _, r := range receipts {
			if r.Decider != nil && r.Decider.Kind == approvals.DecidedByRule {
				rule = append(rule, r)
			}
		}
		if len(rule) != 1 || rule[0].Decision != "deny" || !strings.HasSuffix(rule[0].Decider.File, "permissions.toml") || rule[0].Decider.Line == 0 {
			t.Errorf("the rule's deny of cargo publish: %+v", rule)
		} else {
			ids["rule"] = rule[0].ID
		}
		if !inputHas(receiptByID(receipts, ids["deny"]), "⟪secret: ") {
			t.Errorf("the deny's input does not show the token masked: %+v", receiptByID(receipts, ids["deny"]).Input)
		}

		// The view, as a person opens it.
		dump := filepath.Join(s.Root, "nvim", "view.txt")
		tm.typeText(":command! CwDump lua vim.fn.writefile(vim.api.nvim_buf_get_lines(0, 0, -1, false), '" + dump + "')\n")
		tm.typeText(":Codewhale log\n")
		screen := tm.waitScreen("Decision log:", "newest last", "DECIDED BY", "you, in Neovim", "approved once", "denied", "approved always",
			"the rule 'cargo publish' at ")
		saveLogView(t, tm, nv, "all")
		view := dumpView(t, tm, dump)
		for answer, id := range ids {
			if !slices.Contains(viewIDs(view), id) {
				t.Errorf("the view lacks the %s receipt %s:\n%s", answer, id, strings.Join(view, "\n"))
			}
		}
		if newest := view[len(view)-1]; !strings.HasSuffix(newest, ids["always"]) {
			t.Errorf("the newest line, last, is %q, want the receipt %s", newest, ids["always"])
		}
		noToken(t, "the view", screen, view)

		// f: only the denies, exactly those of the log.
		tm.typeText("f")
		tm.waitScreen("filter (since=")
		tm.typeText("decision=deny\n")
		tm.waitScreen("filters: decision=deny", "newest last")
		view = dumpView(t, tm, dump)
		var denies []string
		for _, r := range receipts {
			if r.Decision == "deny" && r.ID != "" {
				denies = append(denies, r.ID)
			}
		}
		if got := viewIDs(view); len(denies) < 2 || !sameSet(got, denies) {
			t.Errorf("decision=deny shows %q, the log's denies are %q:\n%s", got, denies, strings.Join(view, "\n"))
		}
		tm.typeText("f")
		tm.waitScreen("filter (since=", "decision=deny")
		tm.typeText(" agent=codex\n")
		tm.waitScreen("filters: agent=codex decision=deny", "No receipt matches")
		// A typo is named; the view keeps its filters.
		tm.typeText("f")
		tm.waitScreen("filter (since=")
		tm.typeText("\x15decison=deny\n")
		tm.waitScreen("not a filter: decison=deny", "filters: agent=codex decision=deny")

		// <CR> on the deny (the cursor is on the newest): why, layer by layer.
		tm.typeText("f")
		tm.waitScreen("filter (since=")
		tm.typeText("\x15decision=deny\n")
		tm.waitScreen("filters: decision=deny", "newest last")
		tm.typeText("\n")
		tm.waitScreen("codewhale://log/"+ids["deny"], "receipt:")
		saveLogView(t, tm, nv, "show")
		explained := dumpView(t, tm, dump)
		if e := strings.Join(explained, "\n"); !strings.Contains(e, ids["deny"]) || !strings.Contains(e, "you, in Neovim") || !strings.Contains(e, "⟪secret: github token⟫") {
			t.Errorf("log show %s:\n%s", ids["deny"], strings.Join(explained, "\n"))
		}
		noToken(t, "the explanation", tm.capture(false), explained)
		tm.typeText("q")
		tm.waitScreen("filters: decision=deny", "2 receipts, newest last")

		// r reads again: a deny made meanwhile is there, newest last.
		s.Run(s.Repo, s.A.Shell("cargo publish"))
		tm.typeText("r")
		tm.waitScreen("filters: decision=deny", "3 receipts, newest last")
		if view = dumpView(t, tm, dump); !strings.Contains(view[len(view)-1], "exec_shell cargo publish") {
			t.Errorf("after r, the newest line is %q", view[len(view)-1])
		}
	})
}

// TestNvimLogNoInputs: setup{ log_inputs = false } in both Neovims keeps
// the call's input out of the receipt of a call answered there (the
// server's initializationOptions.logInputs), the receipt still naming who
// decided.
func TestNvimLogNoInputs(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s, tm, ctx := startLogNeovim(t, nv, "CWLS_SETUP={log_inputs=false}")
		c := logCall{"once", "log-noinput.txt", s.A.Shell(touchCommand("log-noinput.txt"))}
		runAgentAnswering(t, ctx, s, tm, c.answer, c.target, c.step)
		raw, receipts := readReceipts(t, filepath.Join(s.Home, ".codewhale", "codewhale-ls", "decisions.jsonl"))
		var mine []approvals.Receipt
		for _, r := range receipts {
			if r.Decider != nil && r.Decider.Kind == approvals.DecidedByPerson {
				mine = append(mine, r)
			}
		}
		if len(mine) != 1 || len(mine[0].Input) != 0 || mine[0].Decider.Answer != "once" || !strings.HasPrefix(mine[0].Decider.Where, "Neovim ") {
			t.Errorf("with log_inputs = false, the receipts of the person's answers: %+v", mine)
		}
		if bytes.Contains(raw, []byte(c.target)) {
			t.Errorf("the command is in the log with log_inputs = false:\n%s", raw)
		}
	})
}

// startLogNeovim starts a real Claude Code's session and Neovim on its
// repository as TestNeovimRealAgents does (the user's policy, the Ask
// posture), in a pane wide enough for the view's columns.
func startLogNeovim(t *testing.T, nv neovim, extraEnv ...string) (*agentcli.Session, *tmuxNeovim, context.Context) {
	t.Helper()
	s := agentcli.NewSession(t, agentcli.Claude)
	if err := os.RemoveAll(filepath.Join(s.Repo, ".codewhale")); err != nil {
		t.Fatal(err)
	}
	s.WriteFile(filepath.Join(s.Repo, "src", "main.rs"), "fn main() {\n}\n")
	s.Install(s.Repo, "--user")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	tm := startAgentsNeovim(t, ctx, nv, s, extraEnv...)
	waitNvimServes(t, s.Root, s.Repo)
	tm.cols, tm.rows = 182, 30
	if out, err := tm.cmd("resize-window", "-x", "182", "-y", "30").CombinedOutput(); err != nil {
		t.Fatalf("tmux resize-window: %v\n%s", err, out)
	}
	return s, tm, ctx
}

// personReceipt is the receipt of c: the one whose decider is the person
// who answered c's card with c.answer where names (its prefix). The
// deny's input is masked, so it is found by its answer alone.
func personReceipt(t *testing.T, receipts []approvals.Receipt, c logCall, where string) approvals.Receipt {
	t.Helper()
	var found []approvals.Receipt
	for _, r := range receipts {
		if r.Decider != nil && r.Decider.Kind == approvals.DecidedByPerson && r.Decider.Answer == c.answer &&
			(c.answer == "deny" || inputHas(r, c.target)) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		b, _ := json.MarshalIndent(receipts, "", " ")
		t.Fatalf("%s: %d receipts of a person's %s, want 1; the log:\n%s", c.target, len(found), c.answer, b)
	}
	r := found[0]
	if !strings.HasPrefix(r.Decider.Where, where) || !strings.Contains(r.Decider.Summary, r.Decider.Where) {
		t.Errorf("%s: the person answered in %q (%q), want %s…", c.answer, r.Decider.Where, r.Decider.Summary, where)
	}
	return r
}

func inputHas(r approvals.Receipt, text string) bool {
	for _, in := range r.Input {
		if strings.Contains(in.Text, text) {
			return true
		}
	}
	return false
}

func receiptByID(receipts []approvals.Receipt, id string) approvals.Receipt {
	for _, r := range receipts {
		if r.ID == id {
			return r
		}
	}
	return approvals.Receipt{}
}

// dumpView writes the current buffer's lines with :CwDump, as typed, and
// returns them.
func dumpView(t *testing.T, tm *tmuxNeovim, dump string) []string {
	t.Helper()
	os.Remove(dump)
	tm.typeText(":CwDump\n")
	give := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(dump); err == nil && len(b) > 0 {
			return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		}
		if time.Now().After(give) {
			t.Fatalf(":CwDump wrote nothing:\n%s", tm.capture(false))
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// viewIDs are the receipts' ids the view lists: each row's last word.
func viewIDs(view []string) []string {
	var ids []string
	rows := false
	for _, l := range view {
		if strings.HasPrefix(l, "TIME ") {
			rows = true
			continue
		}
		if f := strings.Fields(l); rows && len(f) > 0 && f[len(f)-1] != "-" {
			ids = append(ids, f[len(f)-1])
		}
	}
	return ids
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// noToken fails when the token shows on the screen or in the buffer.
func noToken(t *testing.T, what, screen string, lines []string) {
	t.Helper()
	if strings.Contains(screen, fakeGitHubToken[:12]) || strings.Contains(strings.Join(lines, "\n"), fakeGitHubToken[:12]) {
		t.Errorf("%s shows the token:\n%s\n%s", what, screen, strings.Join(lines, "\n"))
	}
}

// saveLogView keeps the view as a picture and as text for the note
// ($CODEWHALE_SCREENSHOT_DIR); CODEWHALE_UPDATE_SCREENSHOTS=1 writes the
// newest Neovim's into docs/images for the README.
func saveLogView(t *testing.T, tm *tmuxNeovim, nv neovim, name string) {
	t.Helper()
	colours := tm.capture(true)
	var img bytes.Buffer
	if err := png.Encode(&img, renderTerminal(colours, tm.cols, tm.rows)); err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)
	out := filepath.Join(dir, "nvim-log-"+nv.label+"-"+name+".png")
	if os.Getenv("CODEWHALE_UPDATE_SCREENSHOTS") == "1" && nv.chroot != "" {
		out = filepath.Join("..", "docs", "images", "nvim-log-"+name+".png")
	}
	if err := os.WriteFile(out, img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "nvim-log-"+nv.label+"-"+name+".txt")
	if err := os.WriteFile(text, []byte(tm.capture(false)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the view: %s, %s", out, text)
}
