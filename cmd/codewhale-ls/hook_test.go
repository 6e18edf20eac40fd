package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/hooks")

// hookWorld is the Codewhale home and workspace a hook case runs in.
type hookWorld struct {
	home, codewhaleHome, ws string
}

// hookScenarios set up the policy each golden case needs; a case named
// after none of them runs with an empty policy.
var hookScenarios = map[string]func(t *testing.T, w hookWorld){
	"shell_typed_deny": func(t *testing.T, w hookWorld) {
		writeFile(t, filepath.Join(w.codewhaleHome, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push --force\"\naction = \"deny\"\n")
	},
	"hook_deny": func(t *testing.T, w hookWorld) {
		writeFile(t, filepath.Join(w.codewhaleHome, "config.toml"), "[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"echo 'the release branch is frozen' >&2; exit 2\"\n")
	},
	"repo_law": func(t *testing.T, w hookWorld) {
		writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), `{"protected_invariants":[{"text":"The wire format is frozen","paths":["proto/**"],"action":"block"}]}`)
	},
	"broken_permissions": func(t *testing.T, w hookWorld) {
		writeFile(t, filepath.Join(w.codewhaleHome, "permissions.toml"), "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	},
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newHookWorld(t *testing.T) hookWorld {
	root := t.TempDir()
	w := hookWorld{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	w.codewhaleHome = filepath.Join(w.home, ".codewhale")
	writeFile(t, filepath.Join(w.codewhaleHome, "config.toml"), "")
	if err := os.MkdirAll(filepath.Join(w.ws, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", w.home)
	t.Setenv("CODEWHALE_HOME", w.codewhaleHome)
	// The hook runs where the agent runs it: in the session's directory.
	t.Chdir(w.ws)
	for _, v := range []string{"CODEWHALE_CONFIG_PATH", "DEEPSEEK_CONFIG_PATH"} {
		t.Setenv(v, "")
	}
	return w
}

// TestHookGolden: each agent's events give exactly the stdout, stderr and
// exit code of their golden file, across the layers that decide: the
// events written for a case (testdata/hooks/AGENT/CASE.json, $WS standing
// for the workspace and $HOME for the home, CASE.golden beside it), and
// every event captured from the real CLI
// (agents/testdata/captured/AGENT/NAME.json, /REPO and /HOME standing for
// them, testdata/hooks/AGENT/captured/NAME.golden), decided as 0.10.1.
func TestHookGolden(t *testing.T) {
	// Absolute: each case runs the hook in its own workspace (t.Chdir).
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range agents.Names() {
		events, err := filepath.Glob(filepath.Join(here, "testdata", "hooks", agent, "*.json"))
		if err != nil || len(events) == 0 {
			t.Fatalf("%s: no golden events (%v)", agent, err)
		}
		captured, _ := filepath.Glob(filepath.Join(here, "..", "..", "agents", "testdata", "captured", agent, "*.json"))
		for _, event := range append(events, captured...) {
			name := strings.TrimSuffix(filepath.Base(event), ".json")
			real := slices.Contains(captured, event)
			t.Run(agent+"/"+name, func(t *testing.T) {
				w := newHookWorld(t)
				if setup, ok := hookScenarios[name]; ok {
					setup(t, w)
				}
				raw, err := os.ReadFile(event)
				if err != nil {
					t.Fatal(err)
				}
				release, placeholders, golden := "0.9.10", []string{"$WS", w.ws, "$HOME", w.home}, strings.TrimSuffix(event, ".json")+".golden"
				if real {
					// The real CLIs ran in a repository with a sub/.
					if err := os.MkdirAll(filepath.Join(w.ws, "sub"), 0o700); err != nil {
						t.Fatal(err)
					}
					release, placeholders = "0.10.1", []string{"/REPO", w.ws, "/HOME", w.home}
					golden = filepath.Join(here, "testdata", "hooks", agent, "captured", name+".golden")
				}
				stdin := strings.NewReplacer(placeholders...).Replace(string(raw))
				code, out, errOut := runCLI(t, stdin, "hook", agent, "--codewhale-version", release)
				got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errOut)
				got = strings.NewReplacer(w.ws, placeholders[0], w.home, placeholders[2]).Replace(got)
				if *updateGolden {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("got\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// TestHookLogsTheAgent: a decision made for another agent is in the
// decision log with the agent's name (issue 11 point 5).
func TestHookLogsTheAgent(t *testing.T) {
	w := newHookWorld(t)
	hookScenarios["shell_typed_deny"](t, w)
	event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"},"tool_use_id":"toolu_1","cwd":"` + w.ws + `"}`
	if code, _, errOut := runCLI(t, event, "hook", "claude-code", "--codewhale-version", "0.9.10"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(filepath.Join(w.codewhaleHome, "codewhale-ls", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	if !lines.Scan() {
		t.Fatal("the decision log is empty")
	}
	var entry map[string]any
	if err := json.Unmarshal(lines.Bytes(), &entry); err != nil {
		t.Fatal(err)
	}
	if entry["agent"] != "claude-code" || entry["tool"] != "exec_shell" || entry["decision"] != "deny" || entry["callId"] != "toolu_1" {
		t.Errorf("log entry = %v", entry)
	}
}

// TestHookUnloggableDecisionDenies: a decision that cannot be logged does
// not run, even an allow.
func TestHookUnloggableDecisionDenies(t *testing.T) {
	w := newHookWorld(t)
	// A directory where the log file should be cannot be opened as one.
	if err := os.MkdirAll(filepath.Join(w.codewhaleHome, "codewhale-ls", "decisions.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	event := `{"tool_name":"Read","tool_input":{"file_path":"README.md"},"cwd":"` + w.ws + `"}`
	code, out, _ := runCLI(t, event, "hook", "claude-code", "--codewhale-version", "0.9.10")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "cannot be logged") {
		t.Errorf("exit %d, stdout %s", code, out)
	}
}

// TestHookUsage: without a known agent the answer format is unknown, so
// the hook exits 2, the code every agent treats as a block.
func TestHookUsage(t *testing.T) {
	for _, args := range [][]string{{"hook"}, {"hook", "emacs"}} {
		code, out, errOut := runCLI(t, "{}", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "claude-code") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestHookBadFlagDenies: a flag error is a deny in the agent's form.
func TestHookBadFlagDenies(t *testing.T) {
	code, out, _ := runCLI(t, "{}", "hook", "copilot-cli", "--posture", "full-access")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "--posture") {
		t.Errorf("exit %d, stdout %s", code, out)
	}
}

// TestHookAskGoesToTheEditor: an ask is put to the editor with a deadline
// that ends before the agent's hook timeout; the editor's answer is the
// agent's, an editor failing mid-prompt is a deny, and only "no editor"
// falls back to the agent's own ask.
func TestHookAskGoesToTheEditor(t *testing.T) {
	w := newHookWorld(t)
	event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm install left-pad"},"permission_mode":"default","cwd":"` + w.ws + `"}`
	agent, _ := agents.Lookup("claude-code")
	started := time.Now()
	for _, c := range []struct {
		name   string
		answer gate.Decision
		err    error
		want   string
		logs   bool
	}{
		{"approved once", gate.Decision{Decision: gate.Allow, Reason: "Approved once in the editor"}, nil, ``, false},
		{"denied", gate.Decision{Decision: gate.Deny, Reason: "Denied in the editor"}, nil, `"permissionDecision":"deny","permissionDecisionReason":"Denied in the editor"`, false},
		{"editor gone mid-prompt", gate.Decision{}, errors.New("connection reset"), `"permissionDecision":"deny","permissionDecisionReason":"asking the editor for approval failed: connection reset"`, false},
		{"no editor", gate.Decision{}, remote.ErrNoEditor, `"permissionDecision":"ask"`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			logPath := filepath.Join(w.codewhaleHome, "codewhale-ls", "decisions.jsonl")
			_ = os.Remove(logPath)
			var asked remote.Request
			out := answerHook(agent, []string{"--codewhale-version", "0.9.10"}, strings.NewReader(event), started,
				func(ctx context.Context, req remote.Request) (gate.Decision, error) {
					asked = req
					if d, ok := ctx.Deadline(); !ok || !d.Equal(req.Deadline) {
						t.Errorf("the context's deadline %v is not the request's %v", d, req.Deadline)
					}
					return c.answer, c.err
				})
			if out.Exit != 0 || !strings.Contains(out.Stdout, c.want) || (c.want == "") != (out.Stdout == "") {
				t.Errorf("got %+v, want stdout holding %s", out, c.want)
			}
			if asked.Agent != "claude-code" || asked.Workspace != w.ws || asked.Call.Tool != "exec_shell" {
				t.Errorf("asked %+v", asked)
			}
			if limit := started.Add(agent.HookTimeout); !asked.Deadline.Before(limit) || !asked.Deadline.After(started) {
				t.Errorf("deadline %v must fall before the agent's timeout at %v", asked.Deadline, limit)
			}
			if _, err := os.Stat(logPath); (err == nil) != c.logs {
				t.Errorf("logged locally: %v, want %v (the editor's server logs what it decides)", err == nil, c.logs)
			}
		})
	}
}

// TestHookRefusesUnreadableEvents: an event over the size limit is denied
// unread, and a relative cwd (no workspace can be named from it) is denied.
func TestHookRefusesUnreadableEvents(t *testing.T) {
	newHookWorld(t)
	huge := `{"tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("x", agents.MaxEventBytes) + `"}}`
	for _, c := range []struct{ name, stdin, want string }{
		{"oversized", huge, "larger than"},
		{"relative cwd", `{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"src"}`, "not an absolute path"},
	} {
		code, out, _ := runCLI(t, c.stdin, "hook", "claude-code", "--codewhale-version", "0.9.10")
		if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, stdout %.300s", c.name, code, out)
		}
	}
}

// TestHookAnswersBeforeTheAgentGivesUp: a Codewhale hook still running
// when the agent's hook timeout nears is cut short and the call denied,
// since most agents run the tool when their hook times out. The timeout is
// the agent's default, or --timeout as written in the agent's settings.
func TestHookAnswersBeforeTheAgentGivesUp(t *testing.T) {
	w := newHookWorld(t)
	writeFile(t, filepath.Join(w.codewhaleHome, "config.toml"), "[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"sleep 60\"\ntimeout_secs = 120\n")
	claude, _ := agents.Lookup("claude-code")
	impatient := *claude
	impatient.HookTimeout = promptMargin + 200*time.Millisecond
	event := `{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"` + w.ws + `"}`
	noEditor := func(context.Context, remote.Request) (gate.Decision, error) {
		return gate.Decision{}, remote.ErrNoEditor
	}
	for name, c := range map[string]struct {
		agent *agents.Agent
		args  []string
	}{
		"the agent's default": {&impatient, nil},
		"--timeout":           {claude, []string{"--timeout", "2"}},
	} {
		started := time.Now()
		out := answerHook(c.agent, append([]string{"--codewhale-version", "0.9.10"}, c.args...), strings.NewReader(event), started, noEditor)
		if out.Exit != 0 || !strings.Contains(out.Stdout, `"permissionDecision":"deny"`) || !strings.Contains(out.Stdout, "hook timeout") {
			t.Errorf("%s: got %+v", name, out)
		}
		if took := time.Since(started); took > 5*time.Second {
			t.Errorf("%s: answered after %v, when the agent had stopped waiting", name, took)
		}
	}
}

// TestHookTimeoutFlag: the deadline keeps promptMargin before the agent's
// timeout, or half of a short one; a bad --timeout is a deny naming it.
func TestHookTimeoutFlag(t *testing.T) {
	started := time.Unix(1000, 0)
	for _, c := range []struct {
		timeout, want time.Duration
	}{{600 * time.Second, 595 * time.Second}, {30 * time.Second, 25 * time.Second}, {4 * time.Second, 2 * time.Second}, {time.Second, 500 * time.Millisecond}} {
		if got := hookDeadline(started, c.timeout).Sub(started); got != c.want {
			t.Errorf("timeout %v: decision ends after %v, want %v", c.timeout, got, c.want)
		}
	}
	for _, bad := range []string{"0", "-5", "1.5", "10s", "86401", ""} {
		code, out, _ := runCLI(t, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "hook", "claude-code", "--timeout="+bad)
		if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "--timeout") {
			t.Errorf("--timeout=%s: exit %d, %s", bad, code, out)
		}
	}
}
