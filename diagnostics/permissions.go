package diagnostics

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// toolAliases are names people write for an evaluated tool that
// tool.Semantic does not already canonicalise.
var toolAliases = map[string]string{"shell": "exec_shell", "sh": "exec_shell", "patch": "apply_patch"}

// lintPermissions adds the semantic lints of permissions.toml (CW200–CW210).
// They only make sense for a file Codewhale accepted: a rejected file has no
// rules in force, which CW005 already says.
func lintPermissions(snap *config.Snapshot, out map[string]*FileResult) {
	f := out[snap.Paths.Permissions]
	pf := snap.Permissions
	if f == nil || pf == nil || !pf.Accepted || len(pf.Rules) == 0 {
		return
	}
	l := &permLint{snap: snap, file: f, rules: pf.Rules, lines: problem.NewLines(f.Src), index: newRuleIndex(pf.Rules)}
	for i := range l.rules {
		l.duplicate(i)
		l.shadowed(i)
		l.askUnderNever(i)
		l.promoted(i)
		l.weakDeny(i)
		l.ridingAllow(i)
		l.deadWorkspace(i)
		l.literalPath(i)
		l.unevaluatedTool(i)
		l.exactWithoutCommand(i)
		l.positional(i)
	}
}

type permLint struct {
	snap  *config.Snapshot
	file  *FileResult
	rules []execpolicy.FileRule
	lines *problem.Lines
	index *ruleIndex
}

func (l *permLint) add(code string, sev problem.Severity, span problem.Span, msg string, related ...problem.Related) *problem.Problem {
	l.file.Problems = append(l.file.Problems, problem.Problem{Code: code, Severity: sev, Span: span, Message: msg, Related: related})
	return &l.file.Problems[len(l.file.Problems)-1]
}

// lineOf is the 1-based line a rule starts on, as messages cite it.
func (l *permLint) lineOf(r execpolicy.FileRule) int { return l.lines.LineOf(r.Span.Start) + 1 }

func (l *permLint) related(r execpolicy.FileRule, msg string) problem.Related {
	return problem.Related{File: l.file.Path, Span: r.Span, Message: msg}
}

// valueSpan is the span of key's value in the rule, else the rule's header
// (the key is absent, so its default is what is wrong).
func valueSpan(r execpolicy.FileRule, key string) problem.Span {
	if e := r.Table.Get(key); e != nil {
		return e.Value.Span
	}
	return r.Span
}

// CW201: approval-card appends skip byte-identical records, but a file
// edited by hand keeps both; the later one adds nothing.
func (l *permLint) duplicate(i int) {
	r := l.rules[i]
	if j, ok := l.index.firstSame(r.Rule, i); ok {
		first := l.rules[j]
		p := l.add("CW201", problem.Warning, r.Span,
			fmt.Sprintf("duplicate rule: the rule at line %d is identical, so Codewhale evaluates this one to the same effect and it changes nothing", l.lineOf(first)),
			l.related(first, "first written here"))
		if span, ok := ruleTextSpan(l.file.Src, r); ok {
			p.Fixes = []problem.Fix{{Title: "Delete the duplicate rule", Safe: true, Edits: []problem.Edit{{Span: span}}}}
		}
		return
	}
}

// CW200: within the one (User) layer the typed winner is the matching rule
// with the highest action, so a rule never wins when another rule with a
// higher action matches every call it matches. Only provable coverage is
// reported.
func (l *permLint) shadowed(i int) {
	r := l.rules[i]
	if ruleIsDead(r.Rule) {
		return
	}
	for _, j := range l.index.coverCandidates(r.Rule) {
		w := l.rules[j]
		if j == i || w.Rule.Action <= r.Rule.Action || !covers(w.Rule, r.Rule) {
			continue
		}
		l.add("CW200", problem.Warning, r.Span,
			fmt.Sprintf("this %s never wins: the %s rule at line %d matches every call it matches, and in one layer %s beats %s", r.Rule.Action, w.Rule.Action, l.lineOf(w), w.Rule.Action, r.Rule.Action),
			l.related(w, fmt.Sprintf("shadowed by this %s rule (%s)", w.Rule.Action, problem.Excerpt(w.Rule.Label()))))
		return
	}
}

// covers reports that w provably matches every call r matches.
func covers(w, r execpolicy.Rule) bool {
	// Cheapest tests first: a file's rules mostly differ in tool or command.
	if w.Tool != r.Tool || !coversCommand(w, r) || !coversPath(w, r) {
		return false
	}
	if w.Workspace != nil {
		if r.Workspace == nil {
			return false
		}
		ws, okW := execpolicy.WorkspaceScope(*w.Workspace)
		rs, okR := execpolicy.WorkspaceScope(*r.Workspace)
		if !okW || !okR || ws != rs {
			return false
		}
	}
	return true
}

func coversPath(w, r execpolicy.Rule) bool {
	switch {
	case w.Path == nil:
		return true
	case r.Path == nil:
		return false
	case *w.Path == *r.Path:
		return true
	case r.Workspace == nil:
		return false
	}
	// A session workspace equal in scope to a drive-letter scope may still be
	// spelled in another case, which path normalisation keeps; compare such
	// paths literally only (above).
	scope, _ := execpolicy.WorkspaceScope(*r.Workspace)
	if !strings.HasPrefix(scope, "/") {
		return false
	}
	fold := execpolicy.HostFoldsCase()
	wp, okW := execpolicy.RelPath(*w.Path, *r.Workspace, fold)
	rp, okR := execpolicy.RelPath(*r.Path, *r.Workspace, fold)
	return okW && okR && wp == rp
}

func coversCommand(w, r execpolicy.Rule) bool {
	switch {
	case w.Command == nil:
		return true
	case r.Command == nil:
		return false
	case !w.CommandExact && !r.CommandExact:
		return equalFoldASCII(strings.TrimSpace(*w.Command), strings.TrimSpace(*r.Command))
	case w.CommandExact && r.CommandExact:
		return strings.TrimSpace(*w.Command) == strings.TrimSpace(*r.Command)
	case !w.CommandExact:
		return shell.AllowMatch(*w.Command, *r.Command)
	}
	return false
}

// equalFoldASCII is tool.LowerASCII(a) == tool.LowerASCII(b) without
// allocating: the comparison runs for every pair of rules.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// CW202: under approval_policy never the engine turns a typed ask into a
// block (docs/codewhale/execpolicy.md §2.5 step 5).
func (l *permLint) askUnderNever(i int) {
	r := l.rules[i]
	p := l.snap.Policy
	never := p.Posture == tool.Never
	if posture, ok := tool.ParsePosture(p.ApprovalPolicy.Value); p.ApprovalPolicy.Set && ok && posture == tool.Never {
		never = true
	}
	if r.Rule.Action != execpolicy.Ask || !never {
		return
	}
	var related []problem.Related
	if p.ApprovalPolicy.Set && p.ApprovalPolicy.File != "" {
		related = append(related, problem.Related{File: p.ApprovalPolicy.File, Span: p.ApprovalPolicy.Span, Message: "approval_policy is set here"})
	}
	l.add("CW202", problem.Warning, valueSpan(r, "action"),
		fmt.Sprintf("this ask rule blocks instead of asking: the effective approval policy is never (%s), so Codewhale refuses every call it matches (\"Typed ask rule '%s' requires approval, but approval policy is never.\")", l.snap.Policy.Describe(), problem.Excerpt(r.Rule.Label())),
		related...)
}

// CW203: the promoted prefix drops the tool and the path, so a rule that
// reads as narrow is global for shell commands.
func (l *permLint) promoted(i int) {
	r := l.rules[i].Rule
	if !r.Promoted() || (r.Tool == "exec_shell" && r.Path == nil) {
		return
	}
	kind, verb := "hard-deny", "blocks"
	if r.Action == execpolicy.Allow {
		kind, verb = "trusted", "trusts"
	}
	var narrow []string
	if r.Tool != "exec_shell" {
		narrow = append(narrow, fmt.Sprintf("the tool %q", r.Tool))
	}
	if r.Path != nil {
		narrow = append(narrow, fmt.Sprintf("the path %q", problem.Excerpt(*r.Path)))
	}
	l.add("CW203", problem.Warning, valueSpan(l.rules[i], "command"),
		fmt.Sprintf("this %s is also a global %s shell prefix: Codewhale promotes a non-exact command without a workspace, dropping %s, so it %s `%s` for every tool, path and repository; add a workspace or command_exact = true to keep it to this rule",
			r.Action, kind, strings.Join(narrow, " and "), verb, problem.Excerpt(strings.TrimSpace(*r.Command))))
}

// CW204: denies are token matches, not semantics (docs/codewhale/execpolicy.md §6.1).
func (l *permLint) weakDeny(i int) {
	fr := l.rules[i]
	r := fr.Rule
	if r.Action != execpolicy.Deny || r.Command == nil || ruleIsDead(r) {
		return
	}
	cmd := strings.TrimSpace(*r.Command)
	quoted := problem.Excerpt(cmd)
	switch {
	case r.CommandExact:
		l.add("CW204", problem.Warning, valueSpan(fr, "command_exact"),
			fmt.Sprintf("this exact deny is no hard prefix: Codewhale blocks only the whole command `%s` spelled exactly so (or as a chained segment); `%s` with more arguments, a path-spelled program or other spacing runs", quoted, quoted))
	case r.Workspace != nil:
		l.add("CW204", problem.Warning, valueSpan(fr, "workspace"),
			fmt.Sprintf("this workspace-scoped deny is no hard prefix: Codewhale promotes only denies without a workspace, so `%s` is matched like an allow pattern and a flag with a value (`%s`) or a path-spelled program (`/usr/bin/%s`) slips past it", quoted, problem.Excerpt(flagWithValue(cmd)), quoted))
	}
	if slip, ok := reorderedFlags(cmd); ok {
		l.add("CW204", problem.Warning, valueSpan(fr, "command"),
			fmt.Sprintf("this deny compares flags literally and in order: it does not catch `%s`; deny only the command words to catch every spelling", problem.Excerpt(slip)))
	}
}

// flagWithValue shows the deny's command with a flag and value between its
// first and second word, the spelling typed denies miss.
func flagWithValue(cmd string) string {
	words := strings.Fields(cmd)
	if len(words) < 2 {
		return cmd + " -c a=b"
	}
	return words[0] + " -c a=b " + strings.Join(words[1:], " ")
}

// reorderedFlags is a spelling of cmd with its first flag spelled or placed
// differently, which the deny matchers provably miss; ok is false when cmd
// has no flag or every respelling still matches.
func reorderedFlags(cmd string) (string, bool) {
	words := strings.Fields(cmd)
	i := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "-") && len(w) > 1 })
	if i < 0 {
		return "", false
	}
	flag, out := words[i], slices.Clone(words)
	switch {
	case !strings.HasPrefix(flag, "--") && len(flag) > 2: // -rf → -fr
		letters := []byte(flag[1:])
		slices.Reverse(letters)
		out[i] = "-" + string(letters)
	case strings.HasPrefix(flag, "--") && len(flag) > 3: // --force → -f
		out[i] = flag[1:3]
	case i == len(out)-1: // push -f → push x -f
		out = slices.Insert(out, i, "x")
	default: // rm -r / → rm / -r
		out = append(slices.Delete(out, i, i+1), flag)
	}
	slip := strings.Join(out, " ")
	if shell.DenyMatch(cmd, slip) || shell.AllowMatch(cmd, slip) {
		return "", false
	}
	return slip, true
}

// CW205: an allow's command is an arity-aware prefix; only ;, &, | and
// newlines make a chain (docs/codewhale/execpolicy.md §6.2).
func (l *permLint) ridingAllow(i int) {
	fr := l.rules[i]
	r := fr.Rule
	if r.Action != execpolicy.Allow || r.Command == nil || r.CommandExact || strings.TrimSpace(*r.Command) == "" || ruleIsDead(r) {
		return
	}
	cmd := strings.TrimSpace(*r.Command)
	l.add("CW205", problem.Info, valueSpan(fr, "command"),
		fmt.Sprintf("this allow also approves `%s` with redirections and substitutions: `%s > ~/.bashrc` and `%s $(curl …)` match it too, since only ;, &, | and newlines make a command chained", cmd, cmd, cmd))
}

func workspaceDead(r execpolicy.Rule) bool {
	if r.Workspace == nil {
		return false
	}
	_, ok := execpolicy.WorkspaceScope(*r.Workspace)
	return !ok
}

// ruleIsDead: the rule matches no call at all, which CW206/CW207 report.
func ruleIsDead(r execpolicy.Rule) bool {
	if workspaceDead(r) {
		return true
	}
	_, dead := pathTrouble(r)
	return dead
}

// CW206
func (l *permLint) deadWorkspace(i int) {
	fr := l.rules[i]
	if !workspaceDead(fr.Rule) {
		return
	}
	msg := fmt.Sprintf("this workspace can never match: Codewhale compares it with the session's workspace root only when it is an absolute directory (not relative, `/`, `C:/` or containing `..`), so the rule %q never applies", fr.Rule.Label())
	if fr.Rule.Action == execpolicy.Deny {
		msg += "; a deny with a workspace is not promoted to a hard-deny prefix either, so it blocks nothing"
	}
	l.add("CW206", problem.Warning, valueSpan(fr, "workspace"), msg)
}

// CW207
func (l *permLint) literalPath(i int) {
	fr := l.rules[i]
	if msg, _ := pathTrouble(fr.Rule); msg != "" {
		l.add("CW207", problem.Warning, valueSpan(fr, "path"), msg)
	}
}

// pathTrouble says how a rule's path matches less than it reads: dead when
// it matches nothing, else the literal characters it holds. Path rules name
// one exact file, normalised (docs/codewhale/execpolicy.md §4).
func pathTrouble(r execpolicy.Rule) (msg string, dead bool) {
	if r.Path == nil {
		return "", false
	}
	p := *r.Path
	trimmed := strings.TrimSpace(p)
	switch {
	case trimmed == "":
		return "an empty path never matches: Codewhale cannot normalise it, so this rule applies to no call", true
	case slices.Contains(strings.FieldsFunc(trimmed, func(c rune) bool { return c == '/' || c == '\\' }), ".."):
		return "a path with a `..` component never matches: Codewhale does not resolve traversal, so neither this rule nor a call spelled with `..` matches", true
	case r.Tool == "exec_shell":
		return "exec_shell calls carry no path, so this rule never matches as a typed rule", true
	case r.Workspace != nil && !workspaceDead(r):
		if _, ok := execpolicy.RelPath(p, *r.Workspace, execpolicy.HostFoldsCase()); !ok {
			return fmt.Sprintf("this path never matches: it is not inside the rule's workspace %q (or is drive-relative), and Codewhale only compares paths inside the workspace", *r.Workspace), true
		}
	}
	if _, okPosix := execpolicy.RelPath(p, "/", false); !okPosix {
		if _, okDrive := execpolicy.RelPath(p, "c:/", false); !okDrive {
			return "this path never matches: Codewhale cannot normalise a drive-relative path", true
		}
	}
	var notes []string
	if strings.ContainsAny(p, "*?[") {
		notes = append(notes, fmt.Sprintf("`*`, `?` and `[` are literal here (path rules have no globs), so this matches only a file named exactly %q", trimmed))
	}
	if strings.Contains(p, "~") {
		notes = append(notes, "`~` is not expanded: it matches only a path literally spelled with `~`")
	}
	if strings.HasSuffix(trimmed, "/") || strings.HasSuffix(trimmed, `\`) {
		notes = append(notes, fmt.Sprintf("path rules have no directory semantics: this matches only %q itself, not the files in it", strings.TrimRight(trimmed, `/\`)))
	}
	return strings.Join(notes, "; "), false
}

// CW208
func (l *permLint) unevaluatedTool(i int) {
	fr := l.rules[i]
	name := fr.Rule.Tool
	if slices.Contains(execpolicy.EvaluatedTools, name) {
		return
	}
	span := valueSpan(fr, "tool")
	p := l.add("CW208", problem.Warning, span,
		fmt.Sprintf("Codewhale's rule layer never evaluates the tool %q: it looks up only %s (the agent's calls are checked under these canonical names), so this rule never applies as a typed rule", name, strings.Join(execpolicy.EvaluatedTools, ", ")))
	if s := suggestTool(name); s != "" {
		p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Change to %q", s), Edits: []problem.Edit{{Span: span, NewText: strconv.Quote(s)}}}}
	}
}

// suggestTool is the evaluated name a rule's tool most likely meant.
func suggestTool(name string) string {
	if s := tool.Semantic(name, nil); slices.Contains(execpolicy.EvaluatedTools, s) {
		return s
	}
	if s, ok := toolAliases[tool.LowerASCII(strings.TrimSpace(name))]; ok {
		return s
	}
	return problem.Nearest(strings.TrimSpace(name), execpolicy.EvaluatedTools)
}

// CW209
func (l *permLint) exactWithoutCommand(i int) {
	fr := l.rules[i]
	e := fr.Table.Get("command_exact")
	if !fr.Rule.CommandExact || fr.Rule.Command != nil || e == nil {
		return
	}
	l.add("CW209", problem.Warning, e.KeySpan,
		fmt.Sprintf("command_exact without command compares nothing: Codewhale accepts it, but it only adds 1 to the rule's specificity, and the rule still matches every %s call", fr.Rule.Tool))
}

// CW210: serde reads an array as the rule's fields by position, which
// nothing in the file shows; say which rule Codewhale reads and offer it
// as the table it is.
func (l *permLint) positional(i int) {
	fr := l.rules[i]
	if !fr.Positional {
		return
	}
	table := execpolicy.FormatInlineRule(fr.Rule)
	p := l.add("CW210", problem.Warning, fr.Span,
		fmt.Sprintf("this array is a rule written by position: Codewhale fills the fields %s in that order (left-out ones take their defaults) and reads it as %s; write it as that table so it reads as a rule",
			strings.Join(execpolicy.RuleFields, ", "), table))
	// A comment inside the array would go with the rewrite: then the fix
	// is offered, but never applied in bulk.
	hasComment := tomlHasComment(l.file.Src[fr.Span.Start:fr.Span.End])
	p.Fixes = []problem.Fix{{Title: "Write the rule as a table", Safe: !hasComment, Edits: []problem.Edit{{Span: fr.Span, NewText: table}}}}
}

// tomlHasComment reports whether TOML text (a value) holds a comment: a
// '#' outside basic and literal strings, single- or multi-line.
func tomlHasComment(text []byte) bool {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '#':
			return true
		case '"', '\'':
			delim := []byte{c}
			if i+2 < len(text) && text[i+1] == c && text[i+2] == c {
				delim = []byte{c, c, c}
			}
			i += len(delim)
			for i < len(text) && !bytes.HasPrefix(text[i:], delim) {
				if c == '"' && text[i] == '\\' {
					i++
				}
				i++
			}
			i += len(delim) - 1
		}
	}
	return false
}
