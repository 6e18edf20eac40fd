package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// flowWorld is the Codewhale home and the workspace (a git work tree) a
// flow test runs in, and the decision log there.
type flowWorld struct {
	home, codewhaleHome, ws, log string
}

// newFlow is a flow for agent in a world of its own: the hook run in the
// workspace, Codewhale 0.9.10, decide for the gate and no editor.
func newFlow(t *testing.T, agent *Agent, decide func(context.Context, config.Options, gate.Request) gate.Decision) (HookFlow, flowWorld) {
	t.Helper()
	root := t.TempDir()
	w := flowWorld{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	w.codewhaleHome = filepath.Join(w.home, ".codewhale")
	w.log = filepath.Join(w.codewhaleHome, "codewhale-ls", "decisions.jsonl")
	for _, dir := range []string{w.codewhaleHome, filepath.Join(w.ws, ".git")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	version := "0.9.10"
	flow := HookFlow{
		Agent: agent,
		Flags: func() (HookFlags, error) {
			return HookFlags{Release: func(context.Context, ...string) (release.Choice, error) {
				choice, _, err := release.Named(&version, nil)
				return choice, err
			}}, nil
		},
		Started: time.Now(),
		Env:     config.MapEnv{"HOME": w.home, "CODEWHALE_HOME": w.codewhaleHome},
		Getwd:   func() (string, error) { return w.ws, nil },
		Decide:  decide,
		AskEditor: func(context.Context, remote.Request) (gate.Decision, error) {
			return gate.Decision{}, remote.ErrNoEditor
		},
	}
	return flow, w
}

// deciding is a gate that gives every call verdict.
func deciding(verdict gate.Verdict) func(context.Context, config.Options, gate.Request) gate.Decision {
	return func(context.Context, config.Options, gate.Request) gate.Decision {
		return gate.Decision{Decision: verdict, Reason: "the gate's " + string(verdict)}
	}
}

func agentNamed(t *testing.T, name string) *Agent {
	t.Helper()
	a, ok := Lookup(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	return a
}

// TestHookAskGoesToTheEditor: an ask is put to the editor with a deadline
// that ends before the agent's hook timeout; the editor's answer is the
// agent's, an editor failing mid-prompt is a deny, and only "no editor"
// falls back to the agent's own ask, which only then is logged here (the
// editor's server logs what it decides).
func TestHookAskGoesToTheEditor(t *testing.T) {
	agent := agentNamed(t, "claude-code")
	flow, w := newFlow(t, agent, deciding(gate.Ask))
	event := `{"hook_event_name":"PreToolUse","session_id":"s-1","tool_name":"Bash","tool_input":{"command":"npm install left-pad"},"permission_mode":"default","cwd":"` + w.ws + `"}`
	for _, c := range []struct {
		name   string
		answer gate.Decision
		err    error
		want   string
		logs   bool
	}{
		{"approved once", gate.Decision{Decision: gate.Allow, Reason: "Approved once in the editor"}, nil, ``, false},
		{"denied", gate.Decision{Decision: gate.Deny, Reason: "Denied in the editor"}, nil, `"permissionDecision":"deny","permissionDecisionReason":"codewhale-ls: Denied in the editor"`, false},
		{"editor gone mid-prompt", gate.Decision{}, errors.New("connection reset"), `"permissionDecision":"deny","permissionDecisionReason":"codewhale-ls: asking the editor for approval failed: connection reset"`, false},
		{"no editor", gate.Decision{}, remote.ErrNoEditor, `"permissionDecision":"ask"`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_ = os.Remove(w.log)
			var asked remote.Request
			flow.AskEditor = func(ctx context.Context, req remote.Request) (gate.Decision, error) {
				asked = req
				if d, ok := ctx.Deadline(); !ok || !d.Equal(req.Deadline) {
					t.Errorf("the context's deadline %v is not the request's %v", d, req.Deadline)
				}
				return c.answer, c.err
			}
			out := flow.Answer(strings.NewReader(event))
			if out.Exit != 0 || !strings.Contains(out.Stdout, c.want) || (c.want == "") != (out.Stdout == "") {
				t.Errorf("got %+v, want stdout holding %s", out, c.want)
			}
			if asked.Agent != "claude-code" || asked.Session != "s-1" || asked.Workspace != w.ws || asked.Call.Tool != "exec_shell" || !asked.Call.OutsideSandbox {
				t.Errorf("asked %+v", asked)
			}
			if want := flow.Started.Add(agent.HookTimeout - answerMargin); !asked.Deadline.Equal(want) {
				t.Errorf("deadline %v, want %v: the answer margin before the agent's timeout", asked.Deadline, want)
			}
			if _, err := os.Stat(w.log); (err == nil) != c.logs {
				t.Errorf("logged locally: %v, want %v", err == nil, c.logs)
			}
		})
	}
}

// TestHookAnswersBeforeTheAgentGivesUp: a decision still running when the
// agent's hook timeout nears is cut short and the call denied, since most
// agents run the tool when their hook times out. The timeout is the
// agent's default, or --timeout as written in the agent's settings.
func TestHookAnswersBeforeTheAgentGivesUp(t *testing.T) {
	claude := agentNamed(t, "claude-code")
	impatient := *claude
	impatient.HookTimeout = answerMargin + 200*time.Millisecond
	two := "2"
	for name, c := range map[string]struct {
		agent   *Agent
		timeout *string
	}{
		"the agent's default": {&impatient, nil},
		"--timeout":           {claude, &two},
	} {
		// A Codewhale hook that runs until the flow's deadline cuts it.
		flow, w := newFlow(t, c.agent, func(ctx context.Context, _ config.Options, req gate.Request) gate.Decision {
			<-ctx.Done()
			return gate.Refuse(req, "the hook was cut short")
		})
		flags, _ := flow.Flags()
		flags.Timeout = c.timeout
		flow.Flags = func() (HookFlags, error) { return flags, nil }
		out := flow.Answer(strings.NewReader(`{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"` + w.ws + `"}`))
		if out.Exit != 0 || !strings.Contains(out.Stdout, `"permissionDecision":"deny"`) || !strings.Contains(out.Stdout, "hook timeout") || !strings.Contains(out.Stdout, "cut short") {
			t.Errorf("%s: got %+v", name, out)
		}
		if took := time.Since(flow.Started); took > 5*time.Second {
			t.Errorf("%s: answered after %v, when the agent had stopped waiting", name, took)
		}
	}
}

// TestHookTimeoutFlag: the deadline keeps answerMargin before the agent's
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
	flow, _ := newFlow(t, agentNamed(t, "claude-code"), deciding(gate.Allow))
	for _, bad := range []string{"0", "-5", "1.5", "10s", "86401", ""} {
		flow.Flags = func() (HookFlags, error) { return HookFlags{Timeout: &bad}, nil }
		out := flow.Answer(strings.NewReader(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
		if out.Exit != 0 || !strings.Contains(out.Stdout, `"permissionDecision":"deny"`) || !strings.Contains(out.Stdout, "--timeout") {
			t.Errorf("--timeout=%s: %+v", bad, out)
		}
	}
}

// TestHookFlowFailsClosed: a command line the hook cannot read, an event
// it cannot, and a panic anywhere are each a deny in the agent's form
// naming it, never a failed hook (after which the agents run the tool).
func TestHookFlowFailsClosed(t *testing.T) {
	codex := agentNamed(t, "codex")
	flow, w := newFlow(t, codex, deciding(gate.Allow))
	event := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"` + w.ws + `"}`
	badFlags := flow
	badFlags.Flags = func() (HookFlags, error) { return HookFlags{}, errors.New("unknown flag --posture") }
	panicking := flow
	panicking.Decide = func(context.Context, config.Options, gate.Request) gate.Decision { panic("the gate broke") }
	noDir := flow
	noDir.Getwd = func() (string, error) { return "", errors.New("removed") }
	for _, c := range []struct {
		name  string
		flow  HookFlow
		event string
		want  string
	}{
		{"bad flags", badFlags, event, "codewhale-ls hook codex: unknown flag --posture"},
		{"a panic", panicking, event, "codewhale-ls hook failed (the gate broke); denied"},
		{"no working directory", noDir, event, "the hook's own working directory is unknown: removed"},
		{"oversized event", flow, `{"tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("x", MaxEventBytes) + `"}}`, "larger than"},
		{"relative cwd", flow, `{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"src"}`, "not an absolute path"},
	} {
		out := c.flow.Answer(strings.NewReader(c.event))
		if out.Exit != 2 || !strings.Contains(out.Stdout, `"permissionDecision":"deny"`) || !strings.Contains(out.Stderr, c.want) {
			t.Errorf("%s: %+v, want codex's deny naming %q", c.name, out, c.want)
		}
	}
}

// TestHookUnloggableDecisionDenies: a decision that cannot be logged does
// not run, even an allow.
func TestHookUnloggableDecisionDenies(t *testing.T) {
	flow, w := newFlow(t, agentNamed(t, "claude-code"), deciding(gate.Allow))
	// A directory where the log file should be cannot be opened as one.
	if err := os.MkdirAll(w.log, 0o700); err != nil {
		t.Fatal(err)
	}
	out := flow.Answer(strings.NewReader(`{"tool_name":"Read","tool_input":{"file_path":"README.md"},"cwd":"` + w.ws + `"}`))
	if out.Exit != 0 || !strings.Contains(out.Stdout, `"permissionDecision":"deny"`) || !strings.Contains(out.Stdout, "cannot be logged") {
		t.Errorf("got %+v", out)
	}
}

// TestHookProjectComesFromTheAgentsOwnVariable: the agent's project
// directory is read from its own variable in the hook's environment, and
// judged with the cwd: the strictest verdict stands.
func TestHookProjectComesFromTheAgentsOwnVariable(t *testing.T) {
	var judgedIn []string
	flow, w := newFlow(t, agentNamed(t, "claude-code"), func(_ context.Context, opts config.Options, req gate.Request) gate.Decision {
		judgedIn = append(judgedIn, opts.Workspace)
		if opts.Workspace != req.Workspace {
			t.Errorf("options for %s, request for %s", opts.Workspace, req.Workspace)
		}
		return gate.Decision{Decision: gate.Allow}
	})
	elsewhere := t.TempDir()
	flow.Env = config.MapEnv{"HOME": w.home, "CODEWHALE_HOME": w.codewhaleHome, "CLAUDE_PROJECT_DIR": w.ws, "GEMINI_PROJECT_DIR": "/gemini/only"}
	out := flow.Answer(strings.NewReader(`{"tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"default","cwd":"` + elsewhere + `"}`))
	if out.Exit != 0 || out.Stdout != "" {
		t.Fatalf("got %+v", out)
	}
	if len(judgedIn) == 0 || judgedIn[0] != w.ws || !slices.Contains(judgedIn, elsewhere) || slices.Contains(judgedIn, "/gemini/only") {
		t.Errorf("judged in %v, want the project %s first and the cwd %s", judgedIn, w.ws, elsewhere)
	}
}

// TestAskEditorsAsksEveryHold: one workspace's editor never answers for
// another workspace's hold (a nested repository's constitution, found in
// review); a workspace spelled through a link is asked once, by whichever
// spelling has an editor.
func TestAskEditorsAsksEveryHold(t *testing.T) {
	root := t.TempDir()
	outer, inner := filepath.Join(root, "outer"), filepath.Join(root, "outer", "inner")
	if err := os.MkdirAll(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(outer, link); err != nil {
		t.Fatal(err)
	}
	judge := func(ws string, v gate.Verdict) judged {
		return judged{req: gate.Request{Workspace: ws}, decision: gate.Decision{Decision: v}}
	}
	decided := []judged{judge(link, gate.Ask), judge(outer, gate.Ask), judge(inner, gate.Ask)}
	cases := []struct {
		name    string
		editors map[string]gate.Verdict // the workspaces an editor serves, and its answer
		want    gate.Verdict
		noEd    bool
		asked   []string
	}{
		{"only the outer editor", map[string]gate.Verdict{outer: gate.Allow}, "", true, []string{link, outer, inner}},
		{"both allow", map[string]gate.Verdict{outer: gate.Allow, inner: gate.Allow}, gate.Allow, false, []string{link, outer, inner}},
		{"the inner denies", map[string]gate.Verdict{outer: gate.Allow, inner: gate.Deny}, gate.Deny, false, []string{link, outer, inner}},
		{"the link's spelling answers", map[string]gate.Verdict{link: gate.Allow, inner: gate.Allow}, gate.Allow, false, []string{link, inner}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []string
			d, err := askEditors(context.Background(), "codex", "", decided, time.Now().Add(time.Minute), func(_ context.Context, r remote.Request) (gate.Decision, error) {
				asked = append(asked, r.Workspace)
				v, ok := c.editors[r.Workspace]
				if !ok {
					return gate.Decision{}, remote.ErrNoEditor
				}
				return gate.Decision{Decision: v}, nil
			})
			if c.noEd != errors.Is(err, remote.ErrNoEditor) || (!c.noEd && d.Decision != c.want) {
				t.Errorf("got %s, %v", d.Decision, err)
			}
			if !slices.Equal(asked, c.asked) {
				t.Errorf("asked %v, want %v", asked, c.asked)
			}
		})
	}
}
