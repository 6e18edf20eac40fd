package hooks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Effect is what one hook run did, for the caller's trace.
type Effect int

const (
	EffectAllow     Effect = iota // ran and neither denied nor asked
	EffectAsk                     // asked for human approval
	EffectDeny                    // exit 2 or decision "deny"
	EffectNoVerdict               // timed out, failed, or strict and failed without a decision
	EffectQueued                  // background: queued, never waited for
	EffectDropped                 // background: the queue was full or absent
)

var effectNames = [...]string{"allow", "ask", "deny", "no verdict", "queued", "dropped"}

func (e Effect) String() string {
	if e < 0 || int(e) >= len(effectNames) {
		return fmt.Sprintf("Effect(%d)", int(e))
	}
	return effectNames[e]
}

// Record is one hook that ran for a call.
type Record struct {
	Label        string // sanitised name or "<source> hook #<n>"
	Source       Source
	Index        int
	ExitCode     *int
	Effect       Effect
	Rewrote      bool // returned an updatedInput Codewhale accepts
	AddedContext bool
}

// Outcome is layer 3's answer for one call.
type Outcome struct {
	Denied bool
	Reason string // the full deny message when Denied
	// Ask, UpdatedInput and Context are only set when not Denied.
	Ask          bool
	UpdatedInput map[string]any // nil = no rewrite
	Context      string         // appended to the tool result as "\n\n[hook context] ..."
	Unavailable  []string       // labels of hooks with no verdict
	Blocking     []string       // the strict ones among them
	Records      []Record
	// Changes are the release changes that made a hook run, or not run,
	// where the oldest implemented release would have decided otherwise.
	Changes []release.Change
}

// Before runs the call's matching tool_call_before hooks in order and
// folds their answers (docs/codewhale/pipeline.md §3.4–§3.5). bg may be nil, in which case
// background hooks are dropped. Before never panics: a panicking runner or
// a cancelled ctx is a lost executor, which denies when a strict gate
// matched.
// WouldRun reports whether a tool_call_before hook of cfg matches call.
func WouldRun(cfg Config, call Call) bool {
	if !cfg.Enabled || cfg.Rejected {
		return false
	}
	match := call.matchContext(cfg.Release)
	return slices.ContainsFunc(cfg.Hooks, func(h Hook) bool {
		return h.Event == ToolCallBefore && h.Condition.Matches(match)
	})
}

func Before(ctx context.Context, runner Runner, bg *Background, cfg Config, call Call) (out Outcome) {
	if runner == nil || !cfg.Enabled {
		return Outcome{}
	}
	match := call.matchContext(cfg.Release)
	var matching []Hook
	var gates []Hook
	var changes []release.Change
	for _, h := range cfg.Hooks {
		if h.Event != ToolCallBefore {
			continue
		}
		matched := h.Condition.Matches(match)
		for _, c := range h.Condition.changedBy(match, matched) {
			if !slices.Contains(changes, c) {
				changes = append(changes, c)
			}
		}
		if !matched {
			continue
		}
		matching = append(matching, h)
		if !h.Background && !h.ContinueOnError {
			gates = append(gates, h)
		}
	}
	if len(matching) == 0 {
		return Outcome{Changes: changes}
	}
	var runs []run
	defer func() {
		if recover() != nil {
			out = lost(call, gates, runs)
		}
		out.Changes = changes
	}()
	env, err := call.env(cfg.Release)
	if err != nil {
		return lost(call, gates, nil)
	}
	dir := cfg.WorkingDir
	if dir == "" {
		dir = call.Workspace
	}
	for _, h := range matching {
		if h.Background {
			queued := bg != nil && bg.Submit(h, env, dir, cfg.timeout(h))
			runs = append(runs, run{hook: h, queued: queued})
			continue
		}
		res := runner.Run(ctx, h, env, dir, cfg.timeout(h))
		runs = append(runs, run{hook: h, result: res, reply: parseReply(res.Stdout)})
		if ctx.Err() != nil {
			return lost(call, gates, runs)
		}
		if (res.ExitCode == nil || *res.ExitCode != 0) && !h.ContinueOnError {
			break
		}
	}
	return decide(call.ToolName, fold(runs), runs)
}

// decide applies the caller's precedence: no-verdict strict gate, then
// deny, then the rest.
func decide(toolName string, v verdict, runs []run) Outcome {
	out := Outcome{Unavailable: v.unavailable, Blocking: v.blocking, Records: records(runs)}
	switch {
	case len(v.blocking) > 0:
		out.Denied = true
		out.Reason = fmt.Sprintf("ToolCallBefore hook returned no verdict for tool '%s' and `continue_on_error = false` is configured: %s",
			toolName, strings.Join(v.blocking, ", "))
	case v.deny:
		out.Denied = true
		out.Reason = fmt.Sprintf("ToolCallBefore hook denied tool '%s': %s", toolName, v.reason)
	default:
		out.Ask, out.UpdatedInput, out.Context = v.ask, v.updatedInput, v.context
	}
	return out
}

// lost fails closed: every strict gate captured before dispatch counts as
// blocking, whether or not it ran.
func lost(call Call, gates []Hook, runs []run) Outcome {
	var v verdict
	for _, g := range gates {
		label := hookLabel(g) + ": the hook executor was lost before a verdict"
		v.unavailable = append(v.unavailable, label)
		v.blocking = append(v.blocking, label)
	}
	return decide(call.ToolName, v, runs)
}

func records(runs []run) []Record {
	recs := make([]Record, 0, len(runs))
	for _, r := range runs {
		rec := Record{Label: hookLabel(r.hook), Source: r.hook.Source, Index: r.hook.Index, ExitCode: r.result.ExitCode,
			Rewrote: r.reply.updatedInput != nil, AddedContext: r.reply.context != ""}
		rec.Effect = effect(r)
		recs = append(recs, rec)
	}
	return recs
}

func effect(r run) Effect {
	code := r.result.ExitCode
	switch {
	case r.hook.Background && r.queued:
		return EffectQueued
	case r.hook.Background:
		return EffectDropped
	case code != nil && *code == 2, r.reply.decision == decideDeny && code != nil:
		return EffectDeny
	case r.noVerdict() != "":
		return EffectNoVerdict
	case r.reply.decision == decideAsk:
		return EffectAsk
	}
	return EffectAllow
}
