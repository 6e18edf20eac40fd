package hooks

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// run is one matching hook and what it produced.
type run struct {
	hook   Hook
	result Result
	reply  reply
	queued bool // background: accepted by the queue
}

func (r run) strict() bool { return !r.hook.ContinueOnError }

// noVerdict is the generic reason a foreground run has no verdict, or "".
// It never quotes stdout, stderr, the command or a path.
func (r run) noVerdict() string {
	code := r.result.ExitCode
	switch {
	case code == nil && r.result.TimedOut:
		return "timed out"
	case code == nil:
		return "exited without a status (failed to start, killed or lost)"
	case r.strict() && *code != 0 && *code != 2 && r.reply.decision == noDecision:
		return fmt.Sprintf("exited with status %d and no decision", *code)
	}
	return ""
}

// verdict is the fold of a call's hook runs (docs/codewhale/pipeline.md §3.5).
type verdict struct {
	deny         bool
	reason       string
	ask          bool
	updatedInput map[string]any
	context      string
	unavailable  []string
	blocking     []string
}

const (
	defaultDenyReason = "ToolCallBefore hook denied tool execution"
	maxContextChars   = 8_000
)

func fold(runs []run) verdict {
	var v verdict
	foreground := runs[:0:0]
	for _, r := range runs {
		if !r.hook.Background {
			foreground = append(foreground, r)
		}
	}
	for _, r := range foreground {
		if why := r.noVerdict(); why != "" {
			label := hookLabel(r.hook) + ": " + why
			v.unavailable = append(v.unavailable, label)
			if r.strict() {
				v.blocking = append(v.blocking, label)
			}
		}
	}
	for _, r := range foreground {
		if code := r.result.ExitCode; code != nil && *code == 2 {
			v.deny, v.reason = true, reasonOrDefault(r.reply.reason)
			return v
		}
	}
	var contexts []string
	for _, r := range foreground {
		if r.result.ExitCode == nil {
			continue
		}
		switch r.reply.decision {
		case decideDeny:
			v.deny, v.reason = true, reasonOrDefault(r.reply.reason)
			return v
		case decideAsk:
			v.ask = true
		}
		if r.reply.updatedInput != nil {
			v.updatedInput = r.reply.updatedInput
		}
		if r.reply.context != "" {
			contexts = append(contexts, r.reply.context)
		}
	}
	v.context = problem.CapRunes(strings.Join(contexts, "\n"), maxContextChars, "")
	return v
}

func reasonOrDefault(reason string) string {
	if reason == "" {
		return defaultDenyReason
	}
	return reason
}

// hookLabel names a hook in messages: its sanitised name, else its place.
func hookLabel(h Hook) string {
	if name := sanitize(h.Name); name != "" {
		return name
	}
	return fmt.Sprintf("%s hook #%d", h.Source, h.Index+1)
}
