package diagnostics

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// The engine is the judge of what the lints say about rules (issue 24,
// point 2): over files of two shell rules each, every form of rule the
// engine reads (allow, ask, deny; a prefix, which allow and deny promote to
// a trusted or hard-deny prefix; an exact command; a workspace-scoped one;
// `*` words), at every implemented release, the test runs the lints and
// the release's engine on many calls, and holds
//
//   - CW200 to the engine: a rule it flags decides no call, in any mode;
//   - the engine to CW200: a rule that decides some call alone but none
//     beside the other rule (dead over the sample) is flagged, unless
//     another finding already says why it never applies;
//   - each claim a message makes ("approves `X`", "`X` … ask") to
//     layer 5's verdict for X (execpolicy.Evaluate, what gate decides at
//     the rule layer).

// judgedCommands are the rules' commands: the "deny, except my branch"
// pair, a program and its subcommand, flags, and `*` words.
var judgedCommands = []string{"git push", "git push origin feature", "git", "git * push", "rm -rf /", "rm * /", "GIT  Push"}

// judgedCalls are the shell calls every file is judged on, besides each
// rule's command alone and followed by an argument.
var judgedCalls = []string{
	"git push origin feature", "git push origin main", "git push --force", "git status",
	"git -C /tmp push origin feature", "--no-pager git push", "/usr/bin/git push origin feature",
	"git  push  origin  feature", "GIT PUSH origin feature", "git checkout push",
	"git push origin feature > out", "git push origin feature && ls", "git push origin feature $(curl example.com)",
	"rm -rf /", "rm -fr /", "rm -rf x /", "rm -r -f /", "/bin/rm -rf /", "ls", "",
}

// judgedModes are the engine's modes the calls are judged in: the TUI's
// (OnFailure) and the headless runtime's (UnlessTrusted). Never and
// OnRequest name the same deciding rule as these (docs/codewhale/
// execpolicy.md §2.5 step 5: only the phase differs).
var judgedModes = []execpolicy.Mode{{Kind: execpolicy.OnFailure}, {Kind: execpolicy.UnlessTrusted}}

type judgedRule struct {
	command, form, action string
}

func (r judgedRule) toml(ws string) string {
	tool := "exec_shell"
	if r.form == "othertool" {
		tool = "read_file" // promoted all the same (CW203)
	}
	s := fmt.Sprintf("[[rules]]\ntool = %q\ncommand = %q\n", tool, r.command)
	switch r.form {
	case "exact":
		s += "command_exact = true\n"
	case "workspace":
		s += fmt.Sprintf("workspace = %q\n", ws)
	}
	return s + fmt.Sprintf("action = %q\n", r.action)
}

// findingsThatExplainDeadRules are the codes that already say a rule never
// applies, or applies differently from how it reads.
var findingsThatExplainDeadRules = []string{string(problem.RuleShadowed), string(problem.RuleDuplicate), string(problem.WorkspaceNeverMatches), string(problem.PathNeverMatches)}

// approvesClaim and askClaim find the calls a message says layer 5
// approves, and those it says are left to ask.
var (
	approvesClaim = regexp.MustCompile("approves (`[^`]+`(?:(?:,| and) `[^`]+`)*)")
	askClaim      = regexp.MustCompile("(`[^`]+`(?:(?:,| and) `[^`]+`)*) ask\\b")
	blocksClaim   = regexp.MustCompile("blocks (`[^`]+`)")
	// CW211 says what gets past a deny (or ask) rule: layer 5 neither
	// blocks it nor (for an ask) asks.
	pastClaim  = regexp.MustCompile("(?:lets |^)(`[^`]+`(?:(?:,| and) `[^`]+`)*) (?:past|get past) this (deny|ask) rule")
	quotedCall = regexp.MustCompile("`([^`]+)`")
)

// claimed are the calls a claim's match quotes.
func claimed(m []string) []string {
	var out []string
	for _, q := range quotedCall.FindAllStringSubmatch(m[1], -1) {
		out = append(out, q[1])
	}
	return out
}

func (r judgedRule) String() string { return fmt.Sprintf("%s %s `%s`", r.action, r.form, r.command) }

func TestEngineJudgesTheLints(t *testing.T) {
	start := time.Now()
	w := newLintWorld(t, "")
	// A global rule acts in every session: the test judges the calls in
	// the rules' workspace and in another one.
	cwds := []string{w.ws, filepath.Join(w.root, "other")}
	var rules []judgedRule
	for _, c := range judgedCommands {
		for _, form := range []string{"prefix", "exact", "workspace"} {
			for _, action := range []string{"allow", "ask", "deny"} {
				rules = append(rules, judgedRule{c, form, action})
			}
		}
	}
	for _, action := range []string{"allow", "ask", "deny"} {
		rules = append(rules, judgedRule{"git push", "othertool", action})
	}
	pairs, calls, checks, claims := 0, 0, 0, 0
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if failures++; failures <= 40 {
			t.Errorf(format, args...)
		}
	}
	for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
		// decidesAlone[i]: the calls rule i decides in a file of its own.
		decidesAlone := make([]map[string]bool, len(rules))
		for i, r := range rules {
			res := w.checkAt(version, map[string]string{w.permissions: r.toml(w.ws)})
			decided := judge(res, cwds, callsFor(r), &checks)
			decidesAlone[i] = decided[0]
		}
		for i, a := range rules {
			for j, b := range rules {
				if i == j {
					continue
				}
				pairs++
				src := a.toml(w.ws) + "\n" + b.toml(w.ws)
				res := w.checkAt(version, map[string]string{w.permissions: src})
				f := res.File(w.permissions)
				pf := res.Snapshot.Permissions
				if f == nil || pf == nil || !pf.Accepted || len(pf.Rules) != 2 {
					t.Fatalf("%s: the pair did not load:\n%s", version, src)
				}
				sample := append(callsFor(a), callsFor(b)...)
				calls += len(sample)
				decided := judge(res, cwds, sample, &checks)
				flagged := map[int]bool{}
				explained := map[int]bool{}
				for _, p := range f.Problems {
					k := ruleAt(pf.Rules, p.Span)
					// A claim about a scoped rule speaks of the sessions in its
					// workspace.
					sessions := cwds
					if k >= 0 && pf.Rules[k].Rule.Workspace != nil {
						sessions = cwds[:1]
					}
					if p.Code == problem.RuleShadowed {
						flagged[k] = true
					}
					for _, code := range findingsThatExplainDeadRules {
						if string(p.Code) == code {
							explained[k] = true
						}
					}
					for _, m := range approvesClaim.FindAllStringSubmatch(p.Message, -1) {
						for _, c := range claimed(m) {
							if v := verdictsFor(res, sessions, c, &checks); slices.ContainsFunc(v, func(k execpolicy.VerdictKind) bool { return k != execpolicy.AllowCall }) {
								fail("%s [%v; %v]: %s says it approves `%s`, layer 5 says %v", version, a, b, p.Code, c, v)
							}
						}
					}
					for _, m := range blocksClaim.FindAllStringSubmatch(p.Message, -1) {
						for _, c := range claimed(m) {
							if v := verdictsFor(res, sessions, c, &checks); slices.ContainsFunc(v, func(k execpolicy.VerdictKind) bool { return k != execpolicy.BlockCall }) {
								fail("%s [%v; %v]: %s says it blocks `%s`, layer 5 says %v", version, a, b, p.Code, c, v)
							}
						}
					}
					texts := []string{p.Message}
					for _, r := range p.Related {
						texts = append(texts, r.Message)
					}
					for _, text := range texts {
						for _, m := range pastClaim.FindAllStringSubmatch(text, -1) {
							for _, c := range claimed(m) {
								if strings.Contains(c, "…") {
									continue // an excerpt, not the call
								}
								held := func(k execpolicy.VerdictKind) bool {
									return k == execpolicy.BlockCall || m[2] == "ask" && k == execpolicy.PromptCall
								}
								if v := verdictsFor(res, sessions, c, &checks); slices.ContainsFunc(v, held) {
									fail("%s [%v; %v]: %s says `%s` gets past a %s rule, layer 5 says %v", version, a, b, p.Code, c, m[2], v)
								}
								claims++
							}
						}
					}
					for _, m := range askClaim.FindAllStringSubmatch(p.Message, -1) {
						for _, c := range claimed(m) {
							if v := verdictsFor(res, sessions, c, &checks); slices.Contains(v, execpolicy.AllowCall) {
								fail("%s [%v; %v]: %s says `%s` asks, layer 5 approves it", version, a, b, p.Code, c)
							}
						}
					}
				}
				for k := range 2 {
					if flagged[k] && len(decided[k]) > 0 {
						fail("%s [%v; %v]: CW200 on rule %d, which decides %q", version, a, b, k+1, keys(decided[k]))
					}
					alone := decidesAlone[i]
					if k == 1 {
						alone = decidesAlone[j]
					}
					if !explained[k] && len(decided[k]) == 0 && anyIn(alone, sample) {
						fail("%s [%v; %v]: rule %d decides %q alone and nothing beside the other, yet no CW200", version, a, b, k+1, keys(alone))
					}
				}
			}
		}
	}
	if failures > 40 {
		t.Errorf("... and %d more failures", failures-40)
	}
	t.Logf("%d rule pairs over 3 releases, %d calls judged (%d engine checks), %d claims of CW211 checked, in %v", pairs, calls, checks, claims, time.Since(start))
}

// callsFor is the sample for a rule: the shared calls, its command alone
// and with an argument after it.
func callsFor(r judgedRule) []string {
	return append([]string{r.command, r.command + " x"}, judgedCalls...)
}

// judge runs the file's engine on every call in every mode and returns,
// per rule of the file, the calls it decides (the engine's result names
// it, as a typed rule or as the prefix it was promoted to).
func judge(res *Result, cwds []string, sample []string, checks *int) []map[string]bool {
	pf := res.Snapshot.Permissions
	decided := make([]map[string]bool, len(pf.Rules))
	for i := range decided {
		decided[i] = map[string]bool{}
	}
	engine := res.Snapshot.Engine()
	for _, call := range sample {
		for m := range len(judgedModes) * len(cwds) {
			mode, ws := judgedModes[m%len(judgedModes)], cwds[m/len(judgedModes)]
			*checks++
			r := engine.Check(execpolicy.Input{Command: call, Cwd: ws, Tool: execpolicy.DefaultTool, Mode: mode})
			for _, src := range []*execpolicy.Source{r.RuleSource, r.ActionSource} {
				if src == nil {
					continue
				}
				if k, ok := pf.RecordOf(*src); ok {
					decided[k][call] = true
				}
			}
		}
	}
	return decided
}

// verdictsFor are layer 5's verdicts for a shell call under the asking
// posture in each of cwds: a claim holds only if it holds in every session.
func verdictsFor(res *Result, cwds []string, call string, checks *int) []execpolicy.VerdictKind {
	var out []execpolicy.VerdictKind
	for _, ws := range cwds {
		*checks++
		out = append(out, execpolicy.Evaluate(res.Snapshot.Engine(), execpolicy.DefaultTool, map[string]any{"command": call}, ws, session.Ask, nil).Kind)
	}
	return out
}

// ruleAt is the rule of rules whose text holds span, -1 for none.
func ruleAt(rules []execpolicy.FileRule, span problem.Span) int {
	for k, r := range rules {
		if r.Span.Start <= span.Start && span.End <= max(r.Span.End, lastValueEnd(r)) {
			return k
		}
	}
	return -1
}

func lastValueEnd(r execpolicy.FileRule) int {
	end := r.Span.End
	for _, e := range r.Table.Entries {
		end = max(end, e.Value.Span.End)
	}
	return end
}

func anyIn(set map[string]bool, sample []string) bool {
	for _, c := range sample {
		if set[c] {
			return true
		}
	}
	return false
}

func keys(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	return out
}
