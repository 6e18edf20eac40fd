package gate

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/hardening"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Location says where to look for what decided a call: the record in
// permissions.toml of the rule that decided, or, when Codewhale would refuse
// to start, the first error of the file that stops it. It is codewhale-ls's
// addition to the Decision (the reason stays Codewhale's text), read by the
// refusals shown to other agents (agents.Reply) and by explain.
type Location struct {
	// File is the file's absolute path.
	File string `json:"file"`
	// Line is 1-based; 0 when the file as a whole is at fault (it cannot
	// be read).
	Line int `json:"line"`
	// Problem is, for a file that stops Codewhale, what is wrong at Line
	// (the key and why, as `codewhale-ls check FILE` says it); "" for a
	// rule.
	Problem string `json:"problem,omitempty"`
}

// ruleLocation is where in permissions.toml the rule of a layer-5 verdict
// is written, nil when no record of the loaded file decided (a built-in
// rule, or a file that was not loaded).
func ruleLocation(snap *config.Snapshot, res *execpolicy.Result) *Location {
	pf := snap.Permissions
	if res == nil || pf == nil || !pf.Accepted {
		return nil
	}
	src := res.RuleSource
	if src == nil {
		src = res.ActionSource
	}
	if src == nil {
		return nil
	}
	i, ok := pf.RecordOf(*src)
	if !ok {
		return nil
	}
	lines := problem.NewLines(pf.Src)
	return &Location{File: snap.Paths.Permissions, Line: lines.LineOf(pf.Rules[i].Span.Start) + 1}
}

// fatalLocation is the first error of the first file that makes Codewhale
// refuse to start, nil when no file holds one (an environment variable or
// a requirement decided). A cause is preferred to the summary that
// relates the causes (CW005).
func fatalLocation(snap *config.Snapshot) *Location {
	for _, f := range snap.Files {
		if f.State != config.Invalid {
			continue
		}
		var first *problem.Problem
		for i := range f.Problems {
			pr := &f.Problems[i]
			if pr.Severity != problem.Error {
				continue
			}
			if first == nil || (first.Code == problem.FileRejected && pr.Code != problem.FileRejected) {
				first = pr
			}
		}
		if first == nil {
			continue
		}
		loc := &Location{File: f.Path, Problem: strings.TrimPrefix(first.Message, "Codewhale refuses to start: ")}
		if len(f.Src) > 0 {
			loc.Line = problem.NewLines(f.Src).LineOf(first.Span.Start) + 1
		}
		return loc
	}
	return nil
}

// Describe says where to look: the rule's file and line, or for a file
// that stops Codewhale its file, line and problem with the command that
// lists every problem of it. Refusals shown to agents and explain print it.
func (l *Location) Describe() string {
	if l.Problem == "" {
		return fmt.Sprintf("rule at %s:%d", l.File, l.Line)
	}
	at := l.File
	if l.Line > 0 {
		at = fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return fmt.Sprintf("%s: %s; `codewhale-ls check %s` lists every problem of the file", at, strings.TrimSuffix(l.Problem, "."), hardening.Quote(l.File))
}
