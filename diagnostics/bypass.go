package diagnostics

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// rewrite is another spelling of a command that runs the same thing.
type rewrite struct {
	command string
	// respelling: the command itself spelled otherwise (its flags), which
	// a rule of its own can match; else a wrapper only the hardening
	// layer or auto-review sees through.
	respelling bool
}

// rewritesOf are the known rewrites of a denied command (docs/hardening.md,
// one per class): words is the rule's command, split.
func rewritesOf(words []string) []rewrite {
	cmd := strings.Join(words, " ")
	var out []rewrite
	if len(words) > 1 && words[0] == "rm" {
		for _, s := range rmSpellings(words[1:]) {
			out = append(out, rewrite{command: "rm " + s, respelling: true})
		}
	}
	first, rest := words[0], strings.Join(words[1:], " ")
	if rest != "" {
		rest = " " + rest
	}
	out = append(out,
		rewrite{command: "$'" + hexEscaped(first) + "'" + rest},
		rewrite{command: "{" + strings.Join(words, ",") + "}"},
		rewrite{command: strings.Repeat("$(echo ", 9) + cmd + strings.Repeat(")", 9)},
		rewrite{command: strings.Repeat("eval ", 9) + cmd},
		rewrite{command: "echo " + strconv.Quote(cmd) + " | sh"},
		rewrite{command: "bash <<< " + shellQuote(cmd)},
		rewrite{command: "python3 -c " + shellQuote("import os; os.system("+strconv.Quote(cmd)+")")},
		rewrite{command: "perl -e " + shellQuote("system("+strconv.Quote(cmd)+")")},
		rewrite{command: "awk " + shellQuote("BEGIN{system("+strconv.Quote(cmd)+")}")},
		rewrite{command: "alias a=" + shellQuote(first) + "; a" + rest},
	)
	if len(words) > 1 {
		out = append(out, rewrite{command: "printf " + shellQuote(strings.Join(words[1:], " ")) + " | xargs " + first})
		if first == "git" {
			out = append(out, rewrite{command: "git -c alias.x=" + shellQuote(words[1]) + " x" + strings.TrimPrefix(rest, " "+words[1])})
		}
	}
	if strings.HasPrefix(first, "s") {
		out = append(out, rewrite{command: "ſ" + first[1:] + rest})
	}
	return out
}

// rmSpellings are rm's flag set -rf written otherwise, when the rule
// names it.
func rmSpellings(args []string) []string {
	if len(args) == 0 || (args[0] != "-rf" && args[0] != "-fr" && args[0] != "-Rf") {
		return nil
	}
	tail := strings.Join(args[1:], " ")
	var out []string
	for _, flags := range []string{"-rf", "-fr", "-Rf", "-r -f", "-f -r", "-R -f", "--recursive --force", "-r --force"} {
		if flags != args[0] {
			out = append(out, strings.TrimSpace(flags+" "+tail))
		}
	}
	return out
}

func hexEscaped(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\x%02x`, s[i])
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// maxBypassRules bounds the rules of one file CW211 judges.
const maxBypassRules = 128

// maxRespellings bounds the respellings of one rule CW211 judges.
const maxRespellings = 32

// wrapped is one rule whose command Codewhale lets past in wrappers no
// rule can match: CW211 reports every such rule of a file in one finding
// (issue 24, point 12: the same long note on every shell deny was noise).
type wrapped struct {
	rule int
	// through are the wrapper rewrites the engine let past, at most three;
	// unjudged: some were not tried once three were found.
	through  []string
	unjudged bool
}

// CW211: a shell deny (or ask) rule's command, rewritten in ways that run
// the same thing, is judged by the release's own engine over the whole
// file. Respellings a rule of their own can match (rm's flags) get a
// finding on the rule, whose safe fix adds those rules; the wrappers no
// rule can match (the hardening layer holds them: docs/hardening.md) are
// collected for reportWrapped, one finding for the file.
func (l *permLint) bypassed(i int) {
	fr := l.rules[i]
	r := fr.Rule
	if r.Tool != execpolicy.DefaultTool || r.Command == nil || r.Action == execpolicy.Allow || r.Workspace != nil || ruleIsDead(r, l.rel) || l.snap.Permissions == nil || !l.snap.Permissions.Accepted {
		return
	}
	words := strings.Fields(*r.Command)
	if len(words) == 0 || hasStarWord(*r.Command) {
		return
	}
	// Each rule costs a dozen engine checks, on every keystroke: past
	// maxBypassRules of a file's rules the lint says no more (a file of
	// thousands of rules keeps its speed; docs/diagnostics.md, CW211).
	if l.bypassJudged++; l.bypassJudged > maxBypassRules {
		return
	}
	// A rewrite gets past only if it does in every session: a rule
	// scoped to a workspace may hold it there.
	sessions, ok := l.sessionsOf(r)
	if !ok {
		return // too many workspaces to judge each rewrite in: say nothing
	}
	holds := func(command string) bool {
		for _, cwd := range sessions {
			v := execpolicy.Evaluate(l.snap.Engine(), execpolicy.DefaultTool, map[string]any{"command": command}, cwd, session.Ask, nil)
			if v.Kind == execpolicy.BlockCall || (r.Action == execpolicy.Ask && v.Kind == execpolicy.PromptCall) {
				return true
			}
		}
		return false
	}
	if !holds(strings.Join(words, " ")) {
		return // the rule does not hold its own command (another lint says why)
	}
	// Every respelling is judged (the fix adds those that get through);
	// of the wrappers, only until three are found: the lint runs on every
	// keystroke, and each judgement is a whole engine check.
	var respellings []string
	w := wrapped{rule: i}
	for _, rw := range rewritesOf(words) {
		if rw.respelling {
			continue
		}
		if len(w.through) >= 3 {
			w.unjudged = true
			continue
		}
		if !holds(rw.command) {
			w.through = append(w.through, rw.command)
		}
	}
	for _, c := range respellingsOf(words, l.rel) {
		if !holds(c) {
			respellings = append(respellings, c)
		}
	}
	if len(w.through) > 0 {
		l.wrapped = append(l.wrapped, w)
	}
	if len(respellings) == 0 {
		return
	}
	// A respelling another one added before it already matches would be
	// shadowed (CW200) once added: the release's deny matcher drops it.
	dialect := l.index.dialect
	var added []string
	for _, c := range respellings {
		if !slices.ContainsFunc(added, func(a string) bool { return dialect.DenyMatch(a, c) }) {
			added = append(added, c)
		}
	}
	msg := fmt.Sprintf("Codewhale %s lets %s past this %s rule%s: they run `%s` all the same. A rule of their own holds them (quick fix)",
		l.rel.Name(), backticked(respellings[:min(3, len(respellings))]), r.Action, moreOf(len(respellings)-3, "spellings"), problem.Excerpt(strings.Join(words, " ")))
	p := l.add(problem.RuleBypassed, problem.Info, valueSpan(fr, "command"), msg)
	p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Add %s rules for %d other spellings", r.Action, len(added)), Safe: true, Edits: []problem.Edit{l.appendRules(added, r.Action)}}}
}

// appendRules is the edit that adds a shell rule of action for each
// command, written as the file writes its rules: `[[rules]]` tables at the
// end, or inline tables after the last element of a `rules = [...]` array
// (tables appended after it would define rules twice, and Codewhale would
// refuse the file).
func (l *permLint) appendRules(commands []string, action execpolicy.Action) problem.Edit {
	src := l.file.Src
	var text strings.Builder
	if e := l.rulesEntry(); e != nil && e.Value.Kind == tomldoc.Array && len(e.Value.Items) > 0 &&
		(e.Value.Items[0].Table == nil || !e.Value.Items[0].Table.ArrayElement) {
		items := e.Value.Items
		end := items[len(items)-1].Span.End
		lineStart := bytes.LastIndexByte(src[:items[len(items)-1].Span.Start], '\n') + 1
		indent := src[lineStart:items[len(items)-1].Span.Start]
		if len(bytes.TrimSpace(indent)) > 0 {
			indent = []byte(" ") // the array is on one line
		} else {
			indent = append([]byte("\n"), indent...)
		}
		for _, c := range commands {
			command := c
			fmt.Fprintf(&text, ",%s%s", indent, execpolicy.FormatInlineRule(execpolicy.Rule{Tool: execpolicy.DefaultTool, Command: &command, Action: action}))
		}
		return problem.Edit{Span: problem.Span{Start: end, End: end}, NewText: text.String()}
	}
	end := len(src)
	if end > 0 && src[end-1] != '\n' {
		text.WriteString("\n")
	}
	for _, c := range commands {
		fmt.Fprintf(&text, "\n[[rules]]\ntool = \"exec_shell\"\ncommand = %s\naction = %q\n", strconv.Quote(c), action.String())
	}
	return problem.Edit{Span: problem.Span{Start: end, End: end}, NewText: text.String()}
}

// rulesEntry is the file's top-level `rules` entry, nil when none.
func (l *permLint) rulesEntry() *tomldoc.Entry {
	if l.file.Doc == nil || l.file.Doc.Root == nil {
		return nil
	}
	return l.file.Doc.Root.Get("rules")
}

// moreOf is " (and n more what)" for n > 0, else "".
func moreOf(n int, what string) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d more %s)", n, what)
}

// respellingsOf are the spellings of a command that a rule of their own
// can match (rm's flags), closed under the flag respelling CW204 reports
// (reorderedFlags): once the fix has added them all, none of the added
// rules draws a CW204 of its own (issue 24, point 5: a fix never makes the
// file worse). At most maxRespellings.
func respellingsOf(words []string, rel release.Release) []string {
	cmd := strings.Join(words, " ")
	var out []string
	seen := map[string]bool{cmd: true}
	for _, rw := range rewritesOf(words) {
		if rw.respelling && !seen[rw.command] {
			seen[rw.command] = true
			out = append(out, rw.command)
		}
	}
	for i := 0; i < len(out) && len(out) < maxRespellings; i++ {
		if slip, ok := reorderedFlags(out[i], rel); ok && !seen[slip] {
			seen[slip] = true
			out = append(out, slip)
		}
	}
	return out
}

// reportWrapped is CW211's one finding for the file's rules whose commands
// wrappers carry past Codewhale: on the first such rule, naming the lines
// of all, each in the related information with what gets past it.
func (l *permLint) reportWrapped() {
	if len(l.wrapped) == 0 {
		return
	}
	first := l.wrapped[0]
	fr := l.rules[first.rule]
	var related []problem.Related
	var lines []int
	actions := map[execpolicy.Action]bool{}
	for _, w := range l.wrapped {
		r := l.rules[w.rule]
		actions[r.Rule.Action] = true
		lines = append(lines, l.lineOf(r))
		perhaps := ""
		if w.unjudged {
			perhaps = ", perhaps others"
		}
		related = append(related, l.related(r, fmt.Sprintf("%s get past this %s rule%s", backticked(w.through), r.Rule.Action, perhaps)))
	}
	kind := "deny"
	switch {
	case actions[execpolicy.Deny] && actions[execpolicy.Ask]:
		kind = "deny and ask"
	case actions[execpolicy.Ask]:
		kind = "ask"
	}
	rules := fmt.Sprintf("this shell %s rule (line %d)", kind, lines[0])
	if len(lines) > 1 {
		shown := related[:min(5, len(related))]
		which := causeLines(l.file.Src, shown)
		if more := len(related) - len(shown); more > 0 {
			names := make([]string, len(shown))
			for i, n := range lines[:len(shown)] {
				names[i] = fmt.Sprint(n)
			}
			which = fmt.Sprintf("lines %s and %d more", strings.Join(names, ", "), more)
		}
		rules = fmt.Sprintf("%d shell %s rules of this file (%s)", len(lines), kind, which)
	}
	eachRule := ""
	if len(related) > 1 {
		eachRule = " (the related locations name what gets past each rule)"
	}
	perhaps := ""
	if first.unjudged {
		perhaps = " (perhaps others)"
	}
	msg := fmt.Sprintf("Codewhale %s does not see commands wrapped in interpreters, shells, aliases and the like: for %s, %s%s run `%s` all the same%s. No rule can match them: codewhale-ls's hardening layer (on by default, docs/hardening.md) holds them, and Codewhale itself stops them only under the auto-review posture",
		l.rel.Name(), rules, backticked(first.through), perhaps, problem.Excerpt(strings.Join(strings.Fields(*fr.Rule.Command), " ")), eachRule)
	if len(related) == 1 {
		related = nil // the message names the one rule and what gets past it
	}
	l.add(problem.RuleBypassed, problem.Info, fr.Span, msg, related...)
}
