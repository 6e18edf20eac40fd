package diagnostics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
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

// CW211: a shell deny (or ask) rule's command, rewritten in ways that run
// the same thing, is judged by the release's own engine over the whole
// file; the rewrites it does not hold get through Codewhale (the
// hardening layer holds them: docs/hardening.md).
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
	want := execpolicy.BlockCall
	if r.Action == execpolicy.Ask {
		want = execpolicy.PromptCall
	}
	engine := l.snap.Engine()
	if execpolicy.Evaluate(engine, execpolicy.DefaultTool, map[string]any{"command": strings.Join(words, " ")}, "", session.Ask, nil).Kind != want {
		return // the rule does not hold its own command (another lint says why)
	}
	// Every respelling is judged (the fix adds those that get through);
	// of the wrappers, only until three are found: the lint runs on every
	// keystroke, and each judgement is a whole engine check.
	var through, respellings []string
	unjudged := false
	for _, rw := range rewritesOf(words) {
		if !rw.respelling && len(through) >= 3 {
			unjudged = true
			continue
		}
		if v := execpolicy.Evaluate(engine, execpolicy.DefaultTool, map[string]any{"command": rw.command}, "", session.Ask, nil); v.Kind == execpolicy.BlockCall || (want == execpolicy.PromptCall && v.Kind == execpolicy.PromptCall) {
			continue
		}
		through = append(through, rw.command)
		if rw.respelling {
			respellings = append(respellings, rw.command)
		}
	}
	if len(through) == 0 {
		return
	}
	shown := through[:min(3, len(through))]
	quoted := make([]string, len(shown))
	for j, c := range shown {
		quoted[j] = "`" + problem.Excerpt(c) + "`"
	}
	more := ""
	switch n := len(through) - len(shown); {
	case n > 0 && unjudged:
		more = fmt.Sprintf(" (and %d more rewrites, perhaps others)", n)
	case n > 0:
		more = fmt.Sprintf(" (and %d more rewrites)", n)
	case unjudged:
		more = " (perhaps others)"
	}
	msg := fmt.Sprintf("Codewhale %s does not see %s through this %s rule%s: they run `%s` all the same. codewhale-ls's hardening layer (on by default, docs/hardening.md) holds them; Codewhale itself stops them only under the auto-review posture",
		l.rel.Name(), strings.Join(quoted, ", "), r.Action, more, problem.Excerpt(strings.Join(words, " ")))
	p := l.add(problem.RuleBypassed, problem.Info, valueSpan(fr, "command"), msg)
	if len(respellings) > 0 {
		var text strings.Builder
		for _, c := range respellings {
			fmt.Fprintf(&text, "\n[[rules]]\ntool = \"exec_shell\"\ncommand = %s\naction = %q\n", strconv.Quote(c), r.Action.String())
		}
		end := len(l.file.Src)
		sep := ""
		if end > 0 && l.file.Src[end-1] != '\n' {
			sep = "\n"
		}
		p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Add %s rules for %d other spellings", r.Action, len(respellings)), Safe: true,
			Edits: []problem.Edit{{Span: problem.Span{Start: end, End: end}, NewText: sep + text.String()}}}}
	}
}
