//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
	"github.com/codewhale-ls/codewhale-ls/internal/editortest"
)

// receiptHome is a Codewhale home and a repository that hook processes
// (`codewhale-ls hook AGENT`) and an editor's server share, as on a
// user's machine: one decision log under the home, written by each.
type receiptHome struct {
	// base is an unstarted `codewhale-ls serve --stdio` whose
	// environment every process of the test gets.
	base                    *exec.Cmd
	home, codewhaleHome, ws string
}

func newReceiptHome(t *testing.T) *receiptHome {
	t.Helper()
	base, home := serverCommand(t, "serve", "--stdio")
	h := &receiptHome{base: base, home: home, codewhaleHome: filepath.Join(home, ".codewhale"), ws: filepath.Join(home, "ws")}
	writeFile(t, filepath.Join(h.codewhaleHome, "config.toml"), "")
	if err := os.MkdirAll(filepath.Join(h.ws, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	return h
}

// logPath is the decision log every process writes by default.
func (h *receiptHome) logPath() string {
	return approvals.DefaultDecisionLogPath(h.codewhaleHome)
}

// hook runs `codewhale-ls hook AGENT` as the agent does, in dir (the
// session's directory), with event on its standard input; it returns the
// exit code and what the agent reads.
func (h *receiptHome) hook(t testing.TB, dir, agent, event string, args ...string) (code int, stdout string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.base.Path, append([]string{"hook", agent, "--codewhale-version", "0.10.1"}, args...)...)
	cmd.Env = h.base.Env
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(event)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Errorf("hook %s: %v\n%s", agent, err, errOut.String())
		return -1, ""
	}
	if code != 0 && code != 2 {
		t.Errorf("hook %s exited %d: %s%s", agent, code, out.String(), errOut.String())
	}
	return code, out.String() + errOut.String()
}

// event is a PreToolUse event as Claude Code and Codex send it.
func event(cwd, session, callID, tool string, input map[string]any) string {
	b, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": callID,
		"permission_mode": "default", "cwd": cwd, "session_id": session,
	})
	return string(b)
}

// receiptLines are the lines of the log and of every generation rotation
// kept, oldest first, each checked to be a whole v1 receipt.
func receiptLines(t *testing.T, log string) (receipts []approvals.Receipt, files int) {
	t.Helper()
	paths, _ := filepath.Glob(log + ".*")
	var generations []string
	for g := len(paths); g >= 1; g-- {
		path := fmt.Sprintf("%s.%d", log, g)
		if _, err := os.Stat(path); err == nil {
			generations = append(generations, path)
		}
	}
	for _, path := range append(generations, log) {
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		files++
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var r approvals.Receipt
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: a line that is no receipt (torn?): %v: %.200s", path, err, sc.Text())
			}
			if r.V != approvals.ReceiptVersion || r.ID == "" || r.Decider == nil {
				t.Fatalf("%s: a line that is no v1 receipt: %.300s", path, sc.Text())
			}
			receipts = append(receipts, r)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f.Close()
	}
	return receipts, files
}

// onlyReceipt is the one receipt of the log.
func onlyReceipt(t *testing.T, h *receiptHome) approvals.Receipt {
	t.Helper()
	receipts, _ := receiptLines(t, h.logPath())
	if len(receipts) != 1 {
		t.Fatalf("%d receipts, want 1: %+v", len(receipts), receipts)
	}
	return receipts[0]
}

// inputText is the receipt's input, field=text, for a test's messages.
func inputText(r approvals.Receipt) string {
	var fields []string
	for _, in := range r.Input {
		fields = append(fields, in.Field+"="+in.Text)
	}
	return strings.Join(fields, " ")
}

// TestHookReceiptsNameTheirDecider: each kind of decision a hook makes by
// itself leaves, in the user's decision log, the receipt that says who
// decided, precisely (issue 26, "How it is checked"): the rule's file and
// line, the hardening layer and the rule it protects, the posture, a
// forced hold no one could answer, the agent's own prompt; with the
// agent, its session, the repository and the call's input.
func TestHookReceiptsNameTheirDecider(t *testing.T) {
	const denyPush = "# the team's rules\n\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n"
	t.Run("rule", func(t *testing.T) {
		h := newReceiptHome(t)
		rules := filepath.Join(h.codewhaleHome, "permissions.toml")
		writeFile(t, rules, denyPush)
		if code, out := h.hook(t, h.ws, "codex", shell(h.ws, "git push origin main")); code != 2 {
			t.Fatalf("codex got exit %d: %s", code, out)
		}
		r := onlyReceipt(t, h)
		d := r.Decider
		if d.Kind != approvals.DecidedByRule || d.File != rules || d.Line != 3 || d.Rule != "git push" || !strings.Contains(d.Summary, rules+":3") {
			t.Errorf("decider %+v, want the rule at %s:3", d, rules)
		}
		if r.Agent != "codex" || r.Session != "sess-7" || r.Repo != h.ws || r.CallID == nil || *r.CallID != "call-1" || r.Tool != "exec_shell" ||
			r.Decision != "deny" || r.Layer != 5 || r.Codewhale != "0.10.1" || r.Hardening != "on" || len(r.Trace) == 0 {
			t.Errorf("receipt %+v", r)
		}
		if len(r.Input) == 0 || r.Input[0].Field != "command" || r.Input[0].Text != "git push origin main" || r.Input[0].Bytes != len("git push origin main") {
			t.Errorf("input %+v", r.Input)
		}
	})
	t.Run("hardening", func(t *testing.T) {
		h := newReceiptHome(t)
		rules := filepath.Join(h.codewhaleHome, "permissions.toml")
		writeFile(t, rules, "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n")
		// Codewhale's prefix rule misses the flags spelled another way;
		// the hardening layer does not (docs/hardening.md).
		if code, out := h.hook(t, h.ws, "claude-code", shell(h.ws, "rm -fr /")); code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
			t.Fatalf("exit %d: %s", code, out)
		}
		r := onlyReceipt(t, h)
		d := r.Decider
		if d.Kind != approvals.DecidedByHardening || d.File != rules || d.Line != 1 || d.Rule != "rm -rf /" || r.Hardening != "acted" || !strings.Contains(d.Summary, "hardening") {
			t.Errorf("decider %+v, hardening %q; want the hardening layer acting for %s:1", d, r.Hardening, rules)
		}
	})
	t.Run("posture", func(t *testing.T) {
		for _, c := range []struct{ config, posture, verdict string }{
			{"approval_policy = \"never\"\n", "never", "deny"},
		} {
			h := newReceiptHome(t)
			writeFile(t, filepath.Join(h.codewhaleHome, "config.toml"), c.config)
			h.hook(t, h.ws, "codex", shell(h.ws, "npm install left-pad"))
			r := onlyReceipt(t, h)
			if d := r.Decider; d.Kind != approvals.DecidedByPosture || d.Posture != c.posture || !strings.Contains(d.Summary, c.posture) || string(r.Decision) != c.verdict {
				t.Errorf("%s: %s, decider %+v; want the posture %s", c.config, r.Decision, d, c.posture)
			}
		}
	})
	t.Run("broken file", func(t *testing.T) {
		// Codewhale refuses to start on a broken permissions.toml: the
		// file decided, not the posture.
		h := newReceiptHome(t)
		rules := filepath.Join(h.codewhaleHome, "permissions.toml")
		writeFile(t, rules, "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
		h.hook(t, h.ws, "codex", shell(h.ws, "ls"))
		r := onlyReceipt(t, h)
		if d := r.Decider; d.Kind != approvals.DecidedByLayer || d.File != rules || d.Line != 3 || d.Posture != "" || !strings.Contains(d.Summary, rules+":3") {
			t.Errorf("decider %+v, want layer 1 naming %s:3", d, rules)
		}
	})
	t.Run("forced hold", func(t *testing.T) {
		// Codex cannot ask its user, and nobody serves the repository:
		// a call that only a person may allow is denied. The guard of the
		// agent's own hook holds the first; the hardening layer the
		// second, a shell fed on standard input.
		patch := map[string]any{"command": "*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n"}
		for _, c := range []struct{ tool, hold string }{
			{"apply_patch", "a human decides"},
			{"Bash", "write_stdin, which no hook sees"},
		} {
			h := newReceiptHome(t)
			writeFile(t, filepath.Join(h.codewhaleHome, "config.toml"), "approval_policy = \"on-request\"\n")
			call := shell(h.ws, "ls | sh")
			if c.tool == "apply_patch" {
				call = event(h.ws, "sess-7", "call-1", "apply_patch", patch)
			}
			if code, out := h.hook(t, h.ws, "codex", call); code != 2 {
				t.Fatalf("codex got exit %d: %s", code, out)
			}
			r := onlyReceipt(t, h)
			if d := r.Decider; d.Kind != approvals.DecidedByForcedHold || !strings.Contains(d.Hold, c.hold) || !strings.Contains(d.Summary, d.Hold) || r.Layer != 8 {
				t.Errorf("%s: decider %+v at layer %d, want a forced hold saying %q", c.tool, d, r.Layer, c.hold)
			}
		}
	})
	t.Run("agent prompt", func(t *testing.T) {
		// Claude Code in default mode asks its user itself when nobody
		// serves the repository.
		h := newReceiptHome(t)
		if code, out := h.hook(t, h.ws, "claude-code", shell(h.ws, "npm install left-pad")); code != 0 || !strings.Contains(out, `"permissionDecision":"ask"`) {
			t.Fatalf("exit %d: %s", code, out)
		}
		r := onlyReceipt(t, h)
		if d := r.Decider; d.Kind != approvals.DecidedByAgentPrompt || r.Decision != "ask" || !strings.Contains(d.Summary, "claude-code's own permission prompt") {
			t.Errorf("decider %+v (%s), want the ask handed to Claude Code's own prompt", d, r.Decision)
		}
	})
	t.Run("nobody to ask", func(t *testing.T) {
		// Codex honours only a deny: with nobody serving the repository,
		// the call a person had to decide is denied, and nobody decided.
		h := newReceiptHome(t)
		if code, out := h.hook(t, h.ws, "codex", shell(h.ws, "npm install left-pad")); code != 2 || !strings.Contains(out, `"deny"`) {
			t.Fatalf("exit %d: %s", code, out)
		}
		r := onlyReceipt(t, h)
		if d := r.Decider; d.Kind != approvals.DecidedByNobody || r.Decision != "deny" || !strings.Contains(d.Summary, "no editor or approval console serves this repository, and codex honours only a deny") {
			t.Errorf("decider %+v (%s), want nobody who could be asked", d, r.Decision)
		}
	})
	t.Run("no inputs", func(t *testing.T) {
		h := newReceiptHome(t)
		writeFile(t, filepath.Join(h.codewhaleHome, "permissions.toml"), denyPush)
		writeFile(t, approvals.SettingsPath(h.codewhaleHome), "log_inputs = false\n")
		h.hook(t, h.ws, "codex", shell(h.ws, "git push origin main"))
		r := onlyReceipt(t, h)
		line, _ := os.ReadFile(h.logPath())
		if r.Input != nil || bytes.Contains(line, []byte(`"input"`)) || bytes.Contains(line, []byte("origin main")) || r.Decider.Kind != approvals.DecidedByRule {
			t.Errorf("log_inputs = false, yet: %s", line)
		}
	})
	t.Run("broken settings", func(t *testing.T) {
		h := newReceiptHome(t)
		settings := approvals.SettingsPath(h.codewhaleHome)
		writeFile(t, settings, "log_input = false\n")
		code, out := h.hook(t, h.ws, "codex", shell(h.ws, "ls"))
		if code != 2 || !strings.Contains(out, settings) || !strings.Contains(out, "log_input") {
			t.Errorf("an allowed call under a broken settings.toml: exit %d: %s; want a deny naming %s and its key", code, out, settings)
		}
		if line, err := os.ReadFile(h.logPath()); len(line) > 0 {
			t.Errorf("a receipt written under settings that could not be read (%v): %s", err, line)
		}
	})
}

// receiptEditor starts an editor's server (`codewhale-ls serve`) for h's
// repository (its approval socket is under the test's directory: tests
// using it have short names, as a socket's path must fit in 104 bytes), naming itself Neovim 0.12.0 and answering every prompt with
// answer; it writes the default decision log, the hooks' own.
func receiptEditor(t *testing.T, h *receiptHome, answer string, options map[string]any) *editortest.Editor {
	t.Helper()
	server := exec.Command(h.base.Path, h.base.Args[1:]...)
	server.Env = h.base.Env
	all := map[string]any{"approvals": "codewhale", "codewhaleVersion": "0.10.1"}
	for k, v := range options {
		all[k] = v
	}
	return editortest.StartClient(t, server, h.ws, h.home, editortest.Client{
		Options: all, Prompts: true, Info: map[string]string{"name": "Neovim", "version": "0.12.0"},
	}, editortest.Choice(answer))
}

// TestHookReceiptsOfAnswers: a hook's call put to the editor is
// logged by the editor's server, naming the person's answer and the
// editor by the name it gave at initialize; a later call allowed by that
// "session" answer names the grant, when it was given, and the agent's
// session.
func TestHookReceiptsOfAnswers(t *testing.T) {
	t.Run("grant", func(t *testing.T) {
		h := newReceiptHome(t)
		e := receiptEditor(t, h, "session", nil)
		call := func(id string) string {
			return event(h.ws, "sess-7", id, "Bash", map[string]any{"command": "cargo test"})
		}
		started := time.Now().UTC()
		for _, id := range []string{"call-1", "call-2"} {
			if code, out := h.hook(t, h.ws, "claude-code", call(id)); code != 0 || out != "" {
				t.Fatalf("%s: exit %d: %q, want the silence of an allow", id, code, out)
			}
		}
		if n := len(e.Prompts()); n != 1 {
			t.Fatalf("%d prompts, want one: the second call is the grant's", n)
		}
		receipts, _ := receiptLines(t, h.logPath())
		if len(receipts) != 2 {
			t.Fatalf("%d receipts, want 2: %+v", len(receipts), receipts)
		}
		answered, granted := receipts[0], receipts[1]
		if d := answered.Decider; d.Kind != approvals.DecidedByPerson || d.Answer != "session" || d.Where != "Neovim 0.12.0" || !strings.Contains(d.Summary, "Neovim 0.12.0") {
			t.Errorf("the answered call's decider %+v", d)
		}
		d := granted.Decider
		if d.Kind != approvals.DecidedBySessionGrant || d.GrantedAt == nil || d.GrantedAt.Before(started) || d.GrantedAt.After(answered.Time) ||
			!strings.Contains(d.Summary, d.GrantedAt.Format(time.RFC3339)) {
			t.Errorf("the granted call's decider %+v, want the grant given between %v and the answer's receipt at %v", d, started, answered.Time)
		}
		for _, r := range receipts {
			if r.Agent != "claude-code" || r.Session != "sess-7" || r.Repo != h.ws || r.Decision != "allow" || !strings.HasPrefix(inputText(r), "command=cargo test") {
				t.Errorf("receipt %+v", r)
			}
		}
		if *answered.CallID != "call-1" || *granted.CallID != "call-2" {
			t.Errorf("call ids %s, %s", *answered.CallID, *granted.CallID)
		}
	})
	t.Run("noinput", func(t *testing.T) {
		h := newReceiptHome(t)
		receiptEditor(t, h, "once", map[string]any{"logInputs": false})
		h.hook(t, h.ws, "claude-code", event(h.ws, "sess-7", "call-1", "Bash", map[string]any{"command": "cargo test"}))
		r := onlyReceipt(t, h)
		line, _ := os.ReadFile(h.logPath())
		if r.Input != nil || bytes.Contains(line, []byte("cargo test")) || r.Decider.Kind != approvals.DecidedByPerson || r.Decider.Answer != "once" {
			t.Errorf("initializationOptions.logInputs false, yet: %s", line)
		}
	})
}

// TestHookReceiptsKeepNoSecret: every token shape of the corpus
// (gate/secrets/secretstest), in a shell command asked about, one denied
// by a rule, and each field of an MCP call, leaves the hook's decision
// log without the secret.
func TestHookReceiptsKeepNoSecret(t *testing.T) {
	h := newReceiptHome(t)
	writeFile(t, filepath.Join(h.codewhaleHome, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"curl\"\naction = \"deny\"\n")
	tokens := secretstest.Tokens(26)
	fields := map[string]any{}
	var words []string
	for i, tok := range tokens {
		fields[fmt.Sprintf("arg%02d", i)] = "use " + tok.Text + " here"
		words = append(words, tok.Text)
	}
	command := strings.Join(words, " ; ")
	h.hook(t, h.ws, "claude-code", event(h.ws, "s", "ask", "Bash", map[string]any{"command": "deploy " + command}))
	h.hook(t, h.ws, "codex", event(h.ws, "s", "rule", "Bash", map[string]any{"command": "curl " + command}))
	h.hook(t, h.ws, "claude-code", event(h.ws, "s", "mcp", "mcp__deploy__run", fields))
	receipts, _ := receiptLines(t, h.logPath())
	if len(receipts) != 3 {
		t.Fatalf("%d receipts, want 3", len(receipts))
	}
	log, err := os.ReadFile(h.logPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		secret, _ := json.Marshal(tok.Secret) // as the log spells it
		if bytes.Contains(log, []byte(tok.Secret)) || bytes.Contains(log, bytes.Trim(secret, `"`)) {
			t.Errorf("the %s survived in the decision log", tok.Kind)
		}
	}
	if !bytes.Contains(log, []byte("⟪secret: github token⟫")) {
		t.Errorf("no mask in the log: %.500s", log)
	}
}

// TestReceiptsUnderLoad: 40 hook processes at once
// and an editor's server deciding at the same time write one log rotated
// at 1 MiB (settings.toml), each receipt some 100 KiB: every line of every
// generation is a whole receipt, every call is there exactly once.
func TestReceiptsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 120 hook processes")
	}
	const hooks, rounds, fields = 40, 3, 25
	h := newReceiptHome(t)
	writeFile(t, approvals.SettingsPath(h.codewhaleHome), "[log]\nmax_mib = 1\ngenerations = 1000\n")
	// A second repository no editor serves: its calls are the hooks' to
	// log; the editor logs those of its own.
	alone := filepath.Join(h.home, "alone")
	if err := os.MkdirAll(filepath.Join(alone, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	receiptEditor(t, h, "once", nil)
	input := map[string]any{}
	for i := range fields {
		input[fmt.Sprintf("f%02d", i)] = strings.Repeat(string(rune('a'+i)), 4000)
	}
	started := time.Now()
	var wg sync.WaitGroup
	answers := make([]string, hooks*rounds)
	for i := range hooks {
		wg.Go(func() {
			for r := range rounds {
				n := i*rounds + r
				dir := h.ws
				if n%2 == 1 {
					dir = alone
				}
				_, answers[n] = h.hook(t, dir, "claude-code", event(dir, fmt.Sprintf("s%d", i), fmt.Sprintf("call-%03d", n), "mcp__big__run", input), "--timeout", "300")
			}
		})
	}
	wg.Wait()
	took := time.Since(started)
	for n, answer := range answers {
		want := "" // allowed by the editor
		if n%2 == 1 {
			want = `"permissionDecision":"ask"` // for Claude Code's own prompt
		}
		if (want == "") != (answer == "") || !strings.Contains(answer, want) {
			t.Errorf("call %d: %q", n, answer)
		}
	}
	receipts, files := receiptLines(t, h.logPath())
	seen := map[string]int{}
	byWriter := map[string]int{}
	for _, r := range receipts {
		if r.CallID == nil {
			t.Fatalf("a receipt without its call id: %+v", r)
		}
		seen[*r.CallID]++
		byWriter[r.Decider.Kind]++
		if len(r.Input) != fields {
			t.Errorf("%s: %d input fields, want %d", *r.CallID, len(r.Input), fields)
		}
	}
	for n := range hooks * rounds {
		if id := fmt.Sprintf("call-%03d", n); seen[id] != 1 {
			t.Errorf("%s: %d receipts, want exactly 1", id, seen[id])
		}
	}
	if len(receipts) != hooks*rounds || files < 4 {
		t.Errorf("%d receipts in %d files, want %d in at least 4 (three rotations)", len(receipts), files, hooks*rounds)
	}
	if byWriter[approvals.DecidedByPerson] != hooks*rounds/2 || byWriter[approvals.DecidedByAgentPrompt] != hooks*rounds/2 {
		t.Errorf("receipts by decider %v, want half the editor's, half the hooks'", byWriter)
	}
	for g := 1; g < files; g++ {
		info, err := os.Stat(fmt.Sprintf("%s.%d", h.logPath(), g))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > 1<<20 {
			t.Errorf("generation %d: %d bytes, over the 1 MiB asked for", g, info.Size())
		}
	}
	t.Logf("%d hooks × %d calls and an editor: %d receipts in %d files (%d rotations) in %v", hooks, rounds, len(receipts), files, files-1, took)
}

// TestHookRefusalsHaveReceipts: a call the hook denies before any layer
// decides (flags it cannot read, an event that is no event or never
// ends, a cwd that is no absolute path) has its receipt too, saying
// codewhale-ls refused without deciding, with what is known of the call.
func TestHookRefusalsHaveReceipts(t *testing.T) {
	h := newReceiptHome(t)
	never := func(agent string, args ...string) {
		// A writer that keeps the event open (TestHookEventThatNeverEnds).
		cmd := exec.Command(h.base.Path, append([]string{"hook", agent, "--codewhale-version", "0.10.1"}, args...)...)
		cmd.Env, cmd.Dir = h.base.Env, h.ws
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		if _, err := stdin.Write([]byte(`{"tool_name":"Bash"`)); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "did not end") {
			t.Fatalf("%v: %s", err, out)
		}
	}
	cases := []struct {
		name, agent, event string
		args               []string
		// reason is a word of the receipt's reason.
		reason       string
		session, cmd string
	}{
		{"bad flag", "codex", shell(h.ws, "ls"), []string{"--timeout", "soon"}, "--timeout", "", ""},
		{"not an event", "codex", "{not json", nil, "JSON", "", ""},
		{"never ends", "claude-code", "", []string{"--timeout", "2"}, "did not end", "", ""},
		{"relative cwd", "codex", event("ws/sub", "sess-7", "call-1", "Bash", map[string]any{"command": "ls -la"}), nil, "not an absolute path", "sess-7", "ls -la"},
	}
	for _, c := range cases {
		if c.name == "never ends" {
			never(c.agent, c.args...)
			continue
		}
		if code, out := h.hook(t, h.ws, c.agent, c.event, c.args...); (code == 2) != (c.agent == "codex") || !strings.Contains(out, "deny") {
			t.Errorf("%s: exit %d: %s", c.name, code, out)
		}
	}
	receipts, _ := receiptLines(t, h.logPath())
	if len(receipts) != len(cases) {
		t.Fatalf("%d receipts for %d refusals: %+v", len(receipts), len(cases), receipts)
	}
	for i, c := range cases {
		r := receipts[i]
		if d := r.Decider; d.Kind != approvals.DecidedByCodewhaleLS || r.Decision != "deny" || r.Agent != c.agent || r.Session != c.session ||
			!strings.Contains(r.Reason, c.reason) || !strings.Contains(d.Summary, "without deciding") {
			t.Errorf("%s: receipt %+v, decider %+v", c.name, r, d)
		}
		// The input of a call that was read, none of one that was not.
		if (c.cmd == "") != (len(r.Input) == 0) || (c.cmd != "" && !strings.HasPrefix(inputText(r), "command="+c.cmd)) {
			t.Errorf("%s: input %q", c.name, inputText(r))
		}
	}
}

// TestHookReceiptSaysExact: `hook AGENT --exact` decides as Codewhale
// alone, and its receipts say the hardening layer was off.
func TestHookReceiptSaysExact(t *testing.T) {
	h := newReceiptHome(t)
	writeFile(t, filepath.Join(h.codewhaleHome, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n")
	h.hook(t, h.ws, "codex", shell(h.ws, "git push"), "--exact")
	if r := onlyReceipt(t, h); r.Hardening != "off" {
		t.Errorf("hardening %q, want off", r.Hardening)
	}
}

// shell is a Bash call of session sess-7 in cwd.
func shell(cwd, command string) string {
	return event(cwd, "sess-7", "call-1", "Bash", map[string]any{"command": command})
}
