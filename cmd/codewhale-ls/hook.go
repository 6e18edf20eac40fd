package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// promptMargin is how long before the agent's hook timeout the editor's
// prompt must have ended, so the answer reaches the agent before it gives
// up on the hook (and, for most agents, runs the tool). A timeout shorter
// than twice the margin keeps half of itself for the decision.
const promptMargin = 5 * time.Second

// hookDeadline is when the whole decision must be over for an agent that
// waits timeout for its hook.
func hookDeadline(started time.Time, timeout time.Duration) time.Time {
	return started.Add(timeout - min(promptMargin, timeout/2))
}

// hookTimeout is the agent's hook timeout: --timeout SECONDS, as written
// in the agent's settings next to the command, else the agent's default.
func hookTimeout(agent *agents.Agent, flag string, given bool) (time.Duration, error) {
	if !given {
		return agent.HookTimeout, nil
	}
	seconds, err := strconv.Atoi(flag)
	if err != nil || seconds < 1 || seconds > 24*60*60 {
		return 0, fmt.Errorf("--timeout %q: want the agent's hook timeout in whole seconds, 1 to 86400", flag)
	}
	return time.Duration(seconds) * time.Second, nil
}

// hook answers one pre-tool hook event of another agent on stdin with
// Codewhale's decision in that agent's form (docs/agents.md). Whatever
// goes wrong, the agent gets a deny it honours: never an exit code other
// than 0 or 2, which the agents treat as a failed hook and run the tool.
func hook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "codewhale-ls hook: name the agent: %s\n", strings.Join(agents.Names(), ", "))
		return 2
	}
	agent, ok := agents.Lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "codewhale-ls hook: unknown agent %q (known: %s)\n", args[0], strings.Join(agents.Names(), ", "))
		return 2
	}
	out := answerHook(agent, args[1:], interruptible(stdin), time.Now(), remote.Ask)
	_, _ = io.WriteString(stdout, out.Stdout)
	_, _ = io.WriteString(stderr, out.Stderr)
	return out.Exit
}

// editorAsker puts an ask to the editor serving the workspace
// (remote.Ask; tests stand in for the editor).
type editorAsker func(context.Context, remote.Request) (gate.Decision, error)

// answerHook decides the event; every error of ours is a deny naming it.
func answerHook(agent *agents.Agent, args []string, stdin io.Reader, started time.Time, askEditor editorAsker) (out agents.Output) {
	defer func() {
		if p := recover(); p != nil {
			out = agent.Deny(fmt.Sprintf("codewhale-ls hook failed (%v); denied", p))
		}
	}()
	fs, err := parseFlags(args, []string{"config", "codewhale-version", "timeout"}, nil)
	if err == nil && len(fs.args) > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.args[0])
	}
	var timeout time.Duration
	if err == nil {
		value, given := fs.values["timeout"]
		timeout, err = hookTimeout(agent, value, given)
	}
	if err != nil {
		return agent.Deny("codewhale-ls hook " + agent.Name + ": " + err.Error())
	}
	// Everything must be answered before the agent stops waiting: most
	// agents run the tool when a hook times out. That includes reading the
	// event from a writer that never closes its end.
	deadline := hookDeadline(started, timeout)
	if timed, ok := stdin.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = timed.SetReadDeadline(deadline) // fails only where a read cannot block forever (a file)
	}
	data, err := io.ReadAll(io.LimitReader(stdin, agents.MaxEventBytes+1))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return agent.Deny(fmt.Sprintf("the hook event did not end (its writer kept standard input open) before %s's hook timeout (%s)", agent.Name, timeout))
	}
	if err != nil {
		return agent.Deny("reading the hook event: " + err.Error())
	}
	if len(data) > agents.MaxEventBytes {
		return agent.Deny(fmt.Sprintf("the hook event is larger than %d bytes; denied unread", agents.MaxEventBytes))
	}
	call, err := agent.Parse(data)
	if err != nil {
		return agent.Deny(err.Error())
	}
	// Every agent starts its hooks in its session's directory.
	hookDir, err := os.Getwd()
	if err != nil {
		return agent.Deny("the hook's own working directory is unknown: " + err.Error())
	}
	if call.Cwd == "" {
		call.Cwd = hookDir
	}
	if call.ProjectDir == "" && agent.ProjectEnv != "" {
		call.ProjectDir = os.Getenv(agent.ProjectEnv)
	}
	workspaces, err := agents.FindWorkspaces(call.Cwd, call.ProjectDir, hookDir)
	if err != nil {
		return agent.Deny(err.Error())
	}
	call.Anchor()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	against, err := fs.codewhale(ctx, workspaces.All...)
	if err != nil {
		return agent.Deny(err.Error())
	}
	inputs := call.Each
	if inputs == nil {
		inputs = []map[string]any{call.Input}
	}
	var decided []judged
	for part, input := range inputs {
		for _, ws := range workspaces.All {
			opts := config.Options{ConfigFlag: fs.values["config"], Workspace: ws, Env: config.OSEnv{}, Release: against.Implementation()}
			// The agent runs the call itself, outside Codewhale's OS sandbox.
			req := gate.Request{Tool: call.Tool, Input: maps.Clone(input), Workspace: ws, OutsideSandbox: true, NeedsHuman: call.NeedsHuman}
			if call.CallID != "" {
				req.CallID = &call.CallID
			}
			d := decide(ctx, opts, req)
			if ctx.Err() != nil {
				return agent.Deny(fmt.Sprintf("the decision did not finish within %s's hook timeout (%s): %s", agent.Name, timeout, d.Reason))
			}
			decided = append(decided, judged{opts: opts, req: req, decision: d, part: part})
		}
	}
	verdict := strictest(decided)
	if verdict.decision.Decision == gate.Ask {
		answered, err := askEditors(ctx, agent.Name, decided, deadline, askEditor)
		switch {
		case err == nil:
			// The editor's server decided with its own snapshot and
			// logged the decision itself.
			return agent.Answer(agents.Reply{Verdict: answered.Decision, Reason: answered.Reason})
		case !errors.Is(err, remote.ErrNoEditor):
			return agent.Deny("asking the editor for approval failed: " + err.Error())
		}
	}
	d := verdict.decision
	final := agent.Final(agents.Reply{Verdict: d.Decision, Reason: d.Reason}, call)
	if err := logHookDecision(verdict.opts, agent.Name, call.Tool, d, final); err != nil {
		return agent.Deny(err.Error() + "; a decision that cannot be logged does not run")
	}
	return agent.Answer(final)
}

// judged is one workspace's decision of (one part of) an agent's call.
type judged struct {
	opts     config.Options
	req      gate.Request
	decision gate.Decision
	part     int // which of Call.Each, 0 for a call of one part
}

// askEditors puts the call to the editor of every workspace that asks
// about it, for each part of it: the call is allowed only if each of them
// allows it. Only the editor of a workspace that itself asks may answer
// for it (one whose files allow the call would allow it without a
// prompt), and one workspace's editor never answers for another's hold (a
// nested repository's constitution). A workspace spelled two ways (as
// given and with links resolved) is one, answered by whichever spelling
// has an editor. ErrNoEditor when one of them has none.
func askEditors(ctx context.Context, agentName string, decided []judged, deadline time.Time, askEditor editorAsker) (gate.Decision, error) {
	type hold struct {
		part int
		dir  string // the workspace, links resolved
	}
	var holds []hold
	for _, j := range decided {
		h := hold{j.part, resolvedDir(j.req.Workspace)}
		if j.decision.Decision == gate.Ask && !slices.Contains(holds, h) {
			holds = append(holds, h)
		}
	}
	var answered gate.Decision
	for _, h := range holds {
		found := false
		for _, j := range decided {
			if j.part != h.part || j.decision.Decision != gate.Ask || resolvedDir(j.req.Workspace) != h.dir {
				continue
			}
			d, err := askEditor(ctx, remote.Request{Agent: agentName, Workspace: j.req.Workspace, Call: j.req, Deadline: deadline})
			if errors.Is(err, remote.ErrNoEditor) {
				continue
			}
			if err != nil || d.Decision != gate.Allow {
				return d, err
			}
			answered, found = d, true
			break
		}
		if !found {
			return gate.Decision{}, remote.ErrNoEditor
		}
	}
	return answered, nil
}

// resolvedDir is dir with its links resolved, or dir when they cannot be.
func resolvedDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// strictest is the decision that stands among the workspaces' (docs/agents.md,
// "Workspace"): a deny over an ask over an allow, the first of its kind
// (the session's project comes first).
func strictest(decided []judged) judged {
	rank := func(v gate.Verdict) int {
		switch v {
		case gate.Allow:
			return 0
		case gate.Ask:
			return 1
		}
		return 2
	}
	best := decided[0]
	for _, j := range decided[1:] {
		if rank(j.decision.Decision) > rank(best.decision.Decision) {
			best = j
		}
	}
	return best
}

// logHookDecision appends the verdict the agent is given to the decision
// log, with the agent's name.
func logHookDecision(opts config.Options, agentName, toolName string, d gate.Decision, final agents.Reply) error {
	paths, err := config.ResolvePaths(opts)
	if err != nil {
		return err
	}
	if paths.CodewhaleDir == "" {
		return errors.New("the decision log has no path: no Codewhale home was found")
	}
	log, err := approvals.OpenDecisionLog(approvals.DefaultDecisionLogPath(paths.CodewhaleDir))
	if err != nil {
		return err
	}
	entry := approvals.EntryFor(time.Now(), toolName, agentName, d)
	entry.Decision, entry.Reason = final.Verdict, final.Reason
	appendErr := log.Append(entry)
	closeErr := log.Close()
	return errors.Join(appendErr, closeErr)
}
