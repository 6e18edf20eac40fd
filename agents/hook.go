package agents

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
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/otelexport"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// answerMargin is how long before the agent's hook timeout the hook's
// decision, an editor's prompt included, must be over, so the answer
// reaches the agent before it gives up on the hook (and, for most agents,
// runs the tool). A timeout shorter than twice the margin keeps half of
// itself for the decision (docs/agents.md, "In time"). It is the only
// margin on the agent's side: the approval socket keeps its own,
// remote.ServerMargin, for the editor's server to answer within the
// deadline the hook gives it.
const answerMargin = 5 * time.Second

// hookDeadline is when the whole decision must be over for an agent that
// waits timeout for its hook, started at started.
func hookDeadline(started time.Time, timeout time.Duration) time.Time {
	return started.Add(timeout - min(answerMargin, timeout/2))
}

// HookFlags are the flags of `codewhale-ls hook AGENT`, read by the
// command line.
type HookFlags struct {
	// Config is --config, the Codewhale config file to load ("" for the
	// default).
	Config string
	// Timeout is --timeout as given: the agent's hook timeout in whole
	// seconds, as written in the agent's settings next to the command; nil
	// when not given, for the agent's default.
	Timeout *string
	// Exact is --exact: Codewhale's decision alone, without the hardening
	// layer (docs/hardening.md), as the receipts say.
	Exact bool
	// Release chooses the Codewhale release reproduced for the workspaces,
	// ending by ctx's deadline (--codewhale-version, else the codewhale on
	// PATH: release.Named, release.Detector).
	Release func(ctx context.Context, workspaces ...string) (release.Choice, error)
}

// HookFlow answers one pre-tool hook event of Agent with Codewhale's
// decision in that agent's form (docs/agents.md; docs/architecture.md,
// "How another agent's hook call flows"). Its fields are what the flow
// takes from outside it: the command line and every effect a test
// replaces.
type HookFlow struct {
	Agent *Agent
	// Flags reads the hook's command line; an error is a deny naming it.
	Flags func() (HookFlags, error)
	// Started is when the agent started the hook: its hook timeout counts
	// from then.
	Started time.Time
	// Env is the hook's environment, where the agent's project directory
	// (Agent.ProjectEnv) and Codewhale's files are found.
	Env config.Env
	// Getwd is the hook's working directory: every agent starts its
	// hooks in its session's directory (os.Getwd).
	Getwd func() (string, error)
	// Decide runs the nine layers on a fresh snapshot of opts's files;
	// ctx ending cuts its hooks short and denies the call.
	Decide func(ctx context.Context, opts config.Options, req gate.Request) gate.Decision
	// AskEditor puts an ask to the editor serving the workspace
	// (remote.Ask).
	AskEditor func(ctx context.Context, req remote.Request) (gate.Decision, error)
}

// Answer decides the event read from stdin. Whatever goes wrong, the agent
// gets a deny it honours, naming what went wrong: never an exit code
// other than 0 or 2, which the agents treat as a failed hook and run the
// tool.
func (f HookFlow) Answer(stdin io.Reader) (out Output) {
	agent := f.Agent
	defer func() {
		if p := recover(); p != nil {
			out = agent.Deny(fmt.Sprintf("codewhale-ls hook failed (%v); denied", p))
		}
	}()
	flags, err := f.Flags()
	var timeout time.Duration
	if err == nil {
		timeout, err = hookTimeout(agent, flags.Timeout)
	}
	// Until the flags are read, the Codewhale home is the environment's
	// (no --config): a refusal is logged there, if anywhere.
	opts := config.Options{Env: f.Env}
	if err != nil {
		return f.refuse(opts, flags, Call{}, "codewhale-ls hook "+agent.Name+": "+err.Error())
	}
	opts.ConfigFlag = flags.Config
	// Everything must be answered before the agent stops waiting: most
	// agents run the tool when a hook times out. That includes reading the
	// event from a writer that never closes its end.
	deadline := hookDeadline(f.Started, timeout)
	data, err := readEvent(stdin, deadline)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return f.refuse(opts, flags, Call{}, fmt.Sprintf("the hook event did not end (its writer kept standard input open) before %s's hook timeout (%s)", agent.Name, timeout))
	}
	if err != nil {
		return f.refuse(opts, flags, Call{}, err.Error())
	}
	call, err := agent.Parse(data)
	if err != nil {
		return f.refuse(opts, flags, Call{}, err.Error())
	}
	workspaces, err := f.workspaces(&call)
	if err != nil {
		return f.refuse(opts, flags, call, err.Error())
	}
	call.Anchor()
	opts.Workspace = workspaces.All[0] // the session's project comes first
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	against, err := flags.Release(ctx, workspaces.All...)
	if err != nil {
		return f.refuse(opts, flags, call, err.Error())
	}
	opts.Release = against.Implementation()
	decided, err := f.decideEach(ctx, call, workspaces.All, opts)
	if err != nil {
		return f.refuse(opts, flags, call, fmt.Sprintf("the decision did not finish within %s's hook timeout (%s): %v", agent.Name, timeout, err))
	}
	verdict := strictest(decided)
	if verdict.decision.Decision == gate.Ask {
		answered, err := askEditors(ctx, agent.Name, call.Session, decided, deadline, f.AskEditor)
		switch {
		case err == nil:
			// The editor's server decided with its own snapshot and
			// logged the decision itself.
			return agent.Answer(replyTo(answered))
		case !errors.Is(err, remote.ErrNoEditor):
			return agent.Deny("asking the editor for approval failed: " + err.Error())
		}
	}
	d := verdict.decision
	caller := approvals.Caller{Session: approvals.Session{Agent: agent.Name, ID: call.Session}, Exact: flags.Exact}
	if d.Prompt != nil && d.Prompt.Forced {
		caller.Hold = d.Reason
	}
	final := agent.Final(replyTo(d), call)
	switch {
	case final.Verdict == gate.Ask:
		caller.AgentPrompt = agent.Name + "'s own permission prompt"
	case d.Decision == gate.Ask:
		caller.Unasked = "no editor or approval console serves this repository, and " + agent.noAskOf(call)
	}
	d.Decision, d.Reason = final.Verdict, final.Reason
	logged, export := recordHookDecision(verdict.opts, caller, verdict.req, d)
	out = agent.Answer(final)
	if logged.Decision != d.Decision {
		out = agent.Deny(logged.Reason)
	}
	out.Export = export
	return out
}

// refuse denies a call codewhale-ls could not decide (its flags, an
// event it could not read or parse, a workspace or release it could not
// find, a decision cut short), and logs the refusal as any decision is,
// under opts's Codewhale home: every answer the agent gets has its
// receipt. What is known of the call (its session, tool and input) goes
// in the receipt; a log that cannot be written leaves the deny as it is.
func (f HookFlow) refuse(opts config.Options, flags HookFlags, call Call, reason string) Output {
	req := gate.Request{Tool: call.Tool, Input: call.Input, Workspace: opts.Workspace}
	if call.CallID != "" {
		req.CallID = &call.CallID
	}
	caller := approvals.Caller{Session: approvals.Session{Agent: f.Agent.Name, ID: call.Session}, Exact: flags.Exact}
	recordHookDecision(opts, caller, req, gate.Refuse(req, reason))
	return f.Agent.Deny(reason)
}

// hookTimeout is the agent's hook timeout: --timeout SECONDS (flag) when
// given, else the agent's default.
func hookTimeout(agent *Agent, flag *string) (time.Duration, error) {
	if flag == nil {
		return agent.HookTimeout, nil
	}
	seconds, err := strconv.Atoi(*flag)
	if err != nil || seconds < 1 || seconds > 24*60*60 {
		return 0, fmt.Errorf("--timeout %q: want the agent's hook timeout in whole seconds, 1 to 86400", *flag)
	}
	return time.Duration(seconds) * time.Second, nil
}

// readEvent reads the hook event, at most MaxEventBytes, ending the read
// at deadline where stdin can be given one (os.ErrDeadlineExceeded).
func readEvent(stdin io.Reader, deadline time.Time) ([]byte, error) {
	if timed, ok := stdin.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = timed.SetReadDeadline(deadline) // fails only where a read cannot block forever (a file)
	}
	data, err := io.ReadAll(io.LimitReader(stdin, MaxEventBytes+1))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading the hook event: %w", err)
	}
	if len(data) > MaxEventBytes {
		return nil, fmt.Errorf("the hook event is larger than %d bytes; denied unread", MaxEventBytes)
	}
	return data, nil
}

// workspaces are the workspaces call is judged in (FindWorkspaces); a call
// naming no cwd is the hook's own, and one naming no project has the
// agent's project variable's.
func (f HookFlow) workspaces(call *Call) (Workspaces, error) {
	hookDir, err := f.Getwd()
	if err != nil {
		return Workspaces{}, fmt.Errorf("the hook's own working directory is unknown: %w", err)
	}
	if call.Cwd == "" {
		call.Cwd = hookDir
	}
	if call.ProjectDir == "" && f.Agent.ProjectEnv != "" {
		call.ProjectDir = f.Env.Getenv(f.Agent.ProjectEnv)
	}
	return FindWorkspaces(call.Cwd, call.ProjectDir, hookDir)
}

// judged is one workspace's decision of (one part of) an agent's call.
type judged struct {
	opts     config.Options
	req      gate.Request
	decision gate.Decision
	part     int // which of Call.Each, 0 for a call of one part
}

// decideEach decides each part of call in each workspace, with opts for
// its files. A decision cut short by ctx's end is an error holding its
// reason: the whole call is then denied.
func (f HookFlow) decideEach(ctx context.Context, call Call, workspaces []string, opts config.Options) ([]judged, error) {
	inputs := call.Each
	if inputs == nil {
		inputs = []map[string]any{call.Input}
	}
	var decided []judged
	for part, input := range inputs {
		for _, ws := range workspaces {
			opts.Workspace = ws
			// The agent runs the call itself, outside Codewhale's OS sandbox.
			req := gate.Request{Tool: call.Tool, Input: maps.Clone(input), Workspace: ws, OutsideSandbox: true, NeedsHuman: call.NeedsHuman}
			if call.CallID != "" {
				req.CallID = &call.CallID
			}
			d := f.Decide(ctx, opts, req)
			if ctx.Err() != nil {
				return nil, errors.New(d.Reason)
			}
			decided = append(decided, judged{opts: opts, req: req, decision: d, part: part})
		}
	}
	return decided, nil
}

// askEditors puts the call to the editor of every workspace that asks
// about it, for each part of it: the call is allowed only if each of them
// allows it. Only the editor of a workspace that itself asks may answer
// for it (one whose files allow the call would allow it without a
// prompt), and one workspace's editor never answers for another's hold (a
// nested repository's constitution). A workspace spelled two ways (as
// given and with links resolved) is one, answered by whichever spelling
// has an editor. ErrNoEditor when one of them has none.
func askEditors(ctx context.Context, agentName, session string, decided []judged, deadline time.Time, askEditor func(context.Context, remote.Request) (gate.Decision, error)) (gate.Decision, error) {
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
			d, err := askEditor(ctx, remote.Request{Agent: agentName, Session: session, Workspace: j.req.Workspace, Call: j.req, Deadline: deadline})
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

// recordHookDecision logs d, the verdict the agent is given, with the
// agent's name, through the decision path's one recorder
// (approvals.Recorder.Final: a decision that cannot be logged does not
// run, so it comes back a deny). It is the flow's one write of a decision
// it made itself (an editor's server logs what it decides). The
// receipt's export, when the user turned it on (approvals/otelexport),
// comes back still delivering, for Output.Export.
func recordHookDecision(opts config.Options, caller approvals.Caller, req gate.Request, d gate.Decision) (gate.Decision, approvals.ReceiptSink) {
	paths, _ := config.ResolvePaths(opts)
	env := opts.Env
	if env == nil {
		env = config.OSEnv{}
	}
	var export approvals.ReceiptSink
	newSink := func(s approvals.ExportSettings) (approvals.ReceiptSink, error) {
		sink, err := otelexport.NewSink(s, env.Getenv)
		if sink == nil || err != nil {
			return sink, err
		}
		export = sink
		return closedLater{sink}, nil
	}
	log := approvals.OpenUserRecorder(approvals.DefaultDecisionLogPath(paths.CodewhaleDir), paths.CodewhaleDir, approvals.RecorderOptions{}, newSink)
	defer func() { _ = log.Close(context.Background()) }()
	return log.Final(req, caller, d), export
}

// closedLater is a sink that the recorder's Close leaves open: the hook
// closes its recorder once the decision is logged, and its export only
// once the answer is written.
type closedLater struct{ approvals.ReceiptSink }

func (closedLater) Close(context.Context) error { return nil }
