package diagnostics

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
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
	l := &permLint{snap: snap, rel: snap.Release, file: f, rules: pf.Rules, lines: problem.NewLines(f.Src), index: newRuleIndex(pf.Rules, shell.DialectOf(snap.Release)), relPaths: relPaths{}}
	for i, fr := range pf.Rules {
		if fr.Rule.Promoted() && fr.Rule.Action == execpolicy.Deny {
			l.hardDenies = true
			if StarIsWildcard(fr.Rule, snap.Release) && hasStarWord(*fr.Rule.Command) {
				l.starDenies = append(l.starDenies, i)
			}
		}
	}
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
		l.bypassed(i)
	}
	l.reportWrapped()
}

type permLint struct {
	snap *config.Snapshot
	// rel is the release whose behaviour every message states.
	rel   release.Release
	file  *FileResult
	rules []execpolicy.FileRule
	lines *problem.Lines
	index *ruleIndex
	// hardDenies: the file has a promoted deny, a hard-deny prefix, which
	// only then CW200 puts each shell rule's command to the engine for.
	hardDenies bool
	// starDenies are the promoted denies with a `*` word, when the
	// release reads it as a wildcard.
	starDenies []int
	// relPaths remembers the paths CW200's coverage proof puts relative
	// to a workspace: a file's path rules of one tool are all candidates
	// of each other, so without it a 10,000-rule file normalised the same
	// few thousand paths millions of times (docs/performance.md).
	relPaths relPaths
	// bypassJudged and ridingJudged count the rules CW211 and CW205
	// judged (maxBypassRules).
	bypassJudged, ridingJudged int
	// wrapped are the rules whose commands wrappers carry past Codewhale,
	// for CW211's one finding per file (reportWrapped).
	wrapped []wrapped
	// claimSessions are the sessions a global rule's claims are judged in
	// (sessionsOf), worked out once per file.
	claimSessions []string
}

func (l *permLint) add(code problem.Code, sev problem.Severity, span problem.Span, msg string, related ...problem.Related) *problem.Problem {
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
		p := l.add(problem.RuleDuplicate, problem.Warning, r.Span,
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
	if _, dup := l.index.firstSame(r.Rule, i); dup || ruleIsDead(r.Rule, l.rel) {
		return // CW201 or CW206/CW207 already says why it decides nothing
	}
	if l.blockedByHardDeny(i) {
		return
	}
	if r.Rule.Promoted() && r.Rule.Action == execpolicy.Deny {
		// A hard-deny prefix decides before any typed rule: only an
		// earlier prefix can shadow it (above).
		return
	}
	if r.Rule.Promoted() && (r.Rule.Tool != execpolicy.DefaultTool || r.Rule.Path != nil) {
		// Its typed part never meets a command (a file tool's call has
		// none, a shell call no path); its trusted prefix is what acts.
		l.trustedPrefixShadowed(i)
		return
	}
	for _, j := range l.index.coverCandidates(r.Rule) {
		w := l.rules[j]
		if j == i || !l.outranks(w.Rule, j, r.Rule, i) || !(covers(w.Rule, r.Rule, l.index.dialect, l.relPaths) || l.typedDenyCovers(w.Rule, r.Rule)) {
			continue
		}
		why := fmt.Sprintf("in one layer %s beats %s", w.Rule.Action, r.Rule.Action)
		if w.Rule.Action == r.Rule.Action {
			// Both give the same verdict; only the rule Codewhale names
			// differs, which still leaves this one deciding nothing.
			why = fmt.Sprintf("of two %s rules the more specific wins, and of equally specific ones the later", r.Rule.Action)
		}
		l.add(problem.RuleShadowed, problem.Warning, r.Span,
			fmt.Sprintf("this %s never wins: the %s rule at line %d matches every call it matches, and %s", r.Rule.Action, w.Rule.Action, l.lineOf(w), why),
			l.related(w, fmt.Sprintf("shadowed by this %s rule (%s)", w.Rule.Action, problem.Excerpt(w.Rule.Label()))))
		return
	}
}

// trustedPrefixShadowed is CW200 for a promoted allow whose only effect
// is its trusted shell prefix (CW203): Codewhale takes the first trusted
// prefix that matches, and consults it only when no typed rule matches
// (docs/codewhale/execpolicy.md §2.5 steps 2 and 5), so the prefix never
// decides under an earlier prefix or a global shell rule that match every
// command it does.
func (l *permLint) trustedPrefixShadowed(i int) {
	r := l.rules[i]
	shell := r.Rule
	shell.Tool, shell.Path = execpolicy.DefaultTool, nil
	for j, w := range l.rules {
		var why string
		switch {
		case j == i || !coversCommand(w.Rule, shell, l.index.dialect):
			continue
		case w.Rule.Tool == execpolicy.DefaultTool && w.Rule.Workspace == nil && w.Rule.Path == nil && !ruleIsDead(w.Rule, l.rel):
			why = fmt.Sprintf("the shell %s rule at line %d matches every command that prefix does, and Codewhale consults a trusted prefix only when no typed rule matches", w.Rule.Action, l.lineOf(w))
		case j < i && w.Rule.Promoted() && w.Rule.Action == execpolicy.Allow:
			why = fmt.Sprintf("the trusted prefix of the allow at line %d, earlier in the file, matches every command this one does, and Codewhale takes the first that matches", l.lineOf(w))
		default:
			continue
		}
		l.add(problem.RuleShadowed, problem.Warning, r.Span,
			fmt.Sprintf("this allow never decides a call: its only effect is the trusted shell prefix `%s` (CW203), and %s", problem.Excerpt(strings.TrimSpace(*r.Rule.Command)), why),
			l.related(w, "matches every command the shadowed prefix does"))
		return
	}
}

// outranks reports that typed rule w (the file's rule j) wins over r (rule
// i) wherever both match, as the engine ranks them in one layer: by
// action, then specificity, then the later (docs/codewhale/execpolicy.md
// §2.4). Identical records are CW201's, not shadowing.
func (l *permLint) outranks(w execpolicy.Rule, j int, r execpolicy.Rule, i int) bool {
	switch {
	case w.Action != r.Action:
		return w.Action > r.Action
	case recordOf(w) == recordOf(r):
		return false
	case w.Specificity() != r.Specificity():
		return w.Specificity() > r.Specificity()
	}
	return j > i
}

// typedDenyCovers reports, from Codewhale 0.10.1, that the typed deny w
// matches every call r matches through the deny matcher it also reads
// typed denies with, `*` words and flag skipping included (0.10.1.md N3):
// r's command, and so any words after it.
func (l *permLint) typedDenyCovers(w, r execpolicy.Rule) bool {
	return l.rel.Has(release.TypedDenyMatcher) && w.Action == execpolicy.Deny && w.Command != nil && !w.CommandExact &&
		r.Command != nil && w.Tool == r.Tool && (r.CommandExact || l.index.dialect.LiteralLeading) &&
		l.index.dialect.DenyMatch(*w.Command, *r.Command) && coversScope(w, r, l.relPaths)
}

// blockedByHardDeny is CW200 for a shell rule whose every call a hard-deny
// prefix of another rule forbids: the engine checks the promoted denies
// first, in file order, before any typed rule is looked at
// (docs/codewhale/execpolicy.md §2.5 step 1), so `deny git push` leaves
// nothing for `allow git push origin feature` to decide ("deny, except my
// branch" does not work), nor for a later deny it covers. The release's
// own engine judges the rule's command; a call the rule matches is that
// command, or (without command_exact) it followed by more words, which a
// prefix that matched the command still matches. From 0.10.0 a deny of
// only `*` words forbids every shell command with a word, so it also
// blocks a rule without a command (docs/codewhale/releases/0.10.0.md
// A.3.4).
func (l *permLint) blockedByHardDeny(i int) bool {
	fr := l.rules[i]
	r := fr.Rule
	if !l.hardDenies || !(r.Tool == execpolicy.DefaultTool && r.Path == nil || r.Promoted()) {
		return false // a typed rule of a file tool meets no shell command
	}
	if r.Command == nil {
		if r.Action == execpolicy.Deny {
			return false
		}
		for _, j := range l.starDenies {
			if deny := strings.TrimSpace(*l.rules[j].Rule.Command); onlyStars(deny) {
				l.reportHardDeny(i, j, deny)
				return true
			}
		}
		return false
	}
	cwd := ""
	if r.Workspace != nil {
		cwd = *r.Workspace
	}
	res := l.snap.Engine().Check(execpolicy.Input{Command: *r.Command, Cwd: cwd, Tool: execpolicy.DefaultTool, Mode: execpolicy.Mode{Kind: execpolicy.OnFailure}})
	if res.RuleSource == nil || res.RuleSource.Kind != execpolicy.DeniedPrefix {
		return false
	}
	j, ok := l.snap.Permissions.RecordOf(*res.RuleSource)
	if !ok || j == i {
		return false
	}
	l.reportHardDeny(i, j, strings.TrimSpace(*l.rules[j].Rule.Command))
	return true
}

func (l *permLint) reportHardDeny(i, j int, deny string) {
	r, w := l.rules[i], l.rules[j]
	order := "before every typed rule"
	if r.Rule.Promoted() && r.Rule.Action == execpolicy.Deny {
		order = "before every typed rule, and the hard-deny prefixes in file order"
	}
	how := "it matches this rule's command"
	if StarIsWildcard(w.Rule, l.rel) && hasStarWord(deny) {
		how = "its `*` matches any command words, so it matches this rule's command"
	}
	l.add(problem.RuleShadowed, problem.Warning, r.Span,
		fmt.Sprintf("this %s never decides a call: the deny at line %d is the hard-deny prefix `%s`, which Codewhale %s checks %s; %s, so it forbids every command this rule matches before this rule is looked at; Codewhale has no exceptions to a deny, so delete this rule or narrow the deny",
			r.Rule.Action, l.lineOf(w), problem.Excerpt(deny), l.rel.Name(), order, how),
		l.related(w, "forbids every command the shadowed rule matches"))
}

// covers reports that w provably matches every call r matches, as the
// release of dialect matches commands; memo, when not nil, keeps the
// relative paths it computes.
func covers(w, r execpolicy.Rule, dialect shell.Dialect, memo relPaths) bool {
	// Cheapest tests first: a file's rules mostly differ in tool or command.
	return w.Tool == r.Tool && coversCommand(w, r, dialect) && coversScope(w, r, memo)
}

// coversScope reports that w's path and workspace admit every call r's
// admit.
func coversScope(w, r execpolicy.Rule, memo relPaths) bool {
	if !coversPath(w, r, memo) {
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

func coversPath(w, r execpolicy.Rule, memo relPaths) bool {
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
	wp, okW := memo.of(*w.Path, *r.Workspace)
	rp, okR := memo.of(*r.Path, *r.Workspace)
	return okW && okR && wp == rp
}

// relPaths memoises execpolicy.RelPath by path and workspace; a nil one
// computes every time.
type relPaths map[[2]string]relPath

type relPath struct {
	path string
	ok   bool
}

func (m relPaths) of(path, workspace string) (string, bool) {
	key := [2]string{path, workspace}
	if got, seen := m[key]; seen {
		return got.path, got.ok
	}
	p, ok := execpolicy.RelPath(path, workspace, execpolicy.HostFoldsCase())
	if m != nil {
		m[key] = relPath{p, ok}
	}
	return p, ok
}

func coversCommand(w, r execpolicy.Rule, dialect shell.Dialect) bool {
	switch {
	case w.Command == nil:
		return true
	case r.Command == nil:
		return false
	case !w.CommandExact && !r.CommandExact:
		return equalFoldASCII(strings.TrimSpace(*w.Command), strings.TrimSpace(*r.Command)) || prefixCovers(*w.Command, *r.Command, dialect)
	case w.CommandExact && r.CommandExact:
		return strings.TrimSpace(*w.Command) == strings.TrimSpace(*r.Command)
	case !w.CommandExact:
		return dialect.AllowMatch(*w.Command, *r.Command)
	}
	return false
}

// prefixCovers reports that the non-exact command w matches every call
// the non-exact command r matches, where r's words are w's (`git push` and
// `GIT  Push`) or continue them (`git push` and `git push origin
// feature`): a call r matches by the prefix fallback starts with r's
// words, so with w's. A call r matches by its arity class may start
// elsewhere (`--no-pager git push` is of class `git push`) unless the
// release wants the class spelled at the front (0.10.1.md N5); so then w
// must match by the same class, or r be no class at all.
func prefixCovers(w, r string, dialect shell.Dialect) bool {
	wp, rp := shell.NewAllowPattern(w), shell.NewAllowPattern(r)
	if wp.Collapsed == "" || rp.Collapsed != wp.Collapsed && !strings.HasPrefix(rp.Collapsed, wp.Collapsed+" ") {
		return false
	}
	return wp.Lowered == rp.Lowered || dialect.LiteralLeading || dialect.Classify(r) != rp.Lowered
}

// equalFoldASCII is ascii.Lower(a) == ascii.Lower(b) without
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
	never := p.Posture == session.Never
	if posture, ok := session.ParsePosture(p.ApprovalPolicy.Value); p.ApprovalPolicy.Set && ok && posture == session.Never {
		never = true
	}
	if r.Rule.Action != execpolicy.Ask || !never {
		return
	}
	var related []problem.Related
	if p.ApprovalPolicy.Set && p.ApprovalPolicy.File != "" {
		related = append(related, problem.Related{File: p.ApprovalPolicy.File, Span: p.ApprovalPolicy.Span, Message: "approval_policy is set here"})
	}
	l.add(problem.AskUnderNever, problem.Warning, valueSpan(r, "action"),
		fmt.Sprintf("this ask rule blocks instead of asking: the effective approval policy is never (%s), so Codewhale refuses every call it matches (\"Typed ask rule '%s' requires approval, but approval policy is never.\")", l.snap.Policy.Describe(), problem.Excerpt(r.Rule.Label())),
		related...)
}

// CW203: the promoted prefix drops the tool and the path, so a rule that
// reads as narrow is global for shell commands. From 0.10.0 a promoted
// deny of only `*` words blocks every shell command (releases/0.10.0.md
// A.3.4), which is worse than global.
func (l *permLint) promoted(i int) {
	r := l.rules[i].Rule
	if !r.Promoted() {
		return
	}
	cmd := strings.TrimSpace(*r.Command)
	wildcard := r.Action == execpolicy.Deny && l.rel.Has(release.DenyWildcard)
	if wildcard && onlyStars(cmd) {
		l.add(problem.GlobalPrefix, problem.Error, valueSpan(l.rules[i], "command"),
			fmt.Sprintf("this deny blocks every shell command: Codewhale %s reads `*` as any number of command words, and a deny without workspace or command_exact is a global hard-deny prefix, so `%s` forbids every shell command with a word, for every tool, path and repository", l.rel.Name(), problem.Excerpt(cmd)))
		return
	}
	if r.Tool == "exec_shell" && r.Path == nil {
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
	msg := fmt.Sprintf("this %s is also a global %s shell prefix: Codewhale promotes a non-exact command without a workspace, dropping %s, so it %s `%s` for every tool, path and repository",
		r.Action, kind, strings.Join(narrow, " and "), verb, problem.Excerpt(cmd))
	if wildcard && hasStarWord(cmd) {
		msg += fmt.Sprintf(", and in Codewhale %s its `*` matches any command words, so it blocks more than the words written", l.rel.Name())
	}
	l.add(problem.GlobalPrefix, problem.Warning, valueSpan(l.rules[i], "command"), msg+"; add a workspace or command_exact = true to keep it to this rule")
}

// CW204: denies are token matches, not semantics (docs/codewhale/execpolicy.md
// §6.1), and a `*` is a wildcard only where the release's deny matcher
// reads it (releases/0.10.0.md A.3.4, releases/0.10.1.md N3).
func (l *permLint) weakDeny(i int) {
	fr := l.rules[i]
	r := fr.Rule
	if r.Command == nil || ruleIsDead(r, l.rel) {
		return
	}
	cmd := strings.TrimSpace(*r.Command)
	quoted := problem.Excerpt(cmd)
	if r.Action != execpolicy.Deny {
		if hasStarWord(cmd) {
			l.add(problem.WeakDeny, problem.Warning, valueSpan(fr, "command"),
				fmt.Sprintf("this `*` is not a wildcard: Codewhale %s matches an %s rule's command word by word, so `*` matches only a literal `*` word (only deny rules read `*` as any words, from Codewhale 0.10.0)", l.rel.Name(), r.Action))
		}
		return
	}
	typedMatcher := l.rel.Has(release.TypedDenyMatcher)
	switch {
	case r.CommandExact:
		slips := "more arguments, a path-spelled program or other spacing"
		if typedMatcher {
			// releases/0.10.1.md N3: typed denies also see the command
			// with its program folded to a name (/bin/rm → rm).
			slips = "more arguments or other spacing"
		}
		l.add(problem.WeakDeny, problem.Warning, valueSpan(fr, "command_exact"),
			fmt.Sprintf("this exact deny is no hard prefix: Codewhale %s blocks only the whole command `%s` spelled exactly so (or as a chained segment); `%s` with %s runs", l.rel.Name(), quoted, quoted, slips))
	case r.Workspace != nil && !typedMatcher:
		l.add(problem.WeakDeny, problem.Warning, valueSpan(fr, "workspace"),
			fmt.Sprintf("this workspace-scoped deny is no hard prefix: Codewhale %s promotes only denies without a workspace, so `%s` is matched like an allow pattern and a flag with a value (`%s`) or a path-spelled program (`/usr/bin/%s`) slips past it", l.rel.Name(), quoted, problem.Excerpt(flagWithValue(cmd)), quoted))
	}
	if hasStarWord(cmd) {
		if msg := literalStar(r, l.rel); msg != "" {
			l.add(problem.WeakDeny, problem.Warning, valueSpan(fr, "command"), msg)
		}
		return
	}
	slip, ok := reorderedFlags(cmd, l.rel)
	if !ok || l.fileBlocks(slip) {
		// No slip, or another rule of the file holds it (the respellings
		// CW211's fix adds): nothing gets past.
		return
	}
	wild, wider, wildOK := wildcardSpelling(cmd)
	if !wildOK || !StarIsWildcard(r, l.rel) {
		l.add(problem.WeakDeny, problem.Warning, valueSpan(fr, "command"),
			fmt.Sprintf("this deny compares flags literally and in order: it does not catch `%s`; deny only the command words to catch every spelling", problem.Excerpt(slip)))
		return
	}
	p := l.add(problem.WeakDeny, problem.Warning, valueSpan(fr, "command"),
		fmt.Sprintf("this deny compares flags literally and in order: it does not catch `%s`; in Codewhale %s `%s` catches every spelling, since `*` matches any words in between (and other arguments too, such as `%s`)", problem.Excerpt(slip), l.rel.Name(), problem.Excerpt(wild), problem.Excerpt(wider)))
	p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Use the wildcard: %q", wild), Edits: []problem.Edit{{Span: valueSpan(fr, "command"), NewText: strconv.Quote(wild)}},
		WhyNotSafe: fmt.Sprintf("`%s` also blocks commands the rule did not, such as `%s`", problem.Excerpt(wild), problem.Excerpt(wider))}}
}

// fileBlocks reports that the release's engine, over the whole file,
// blocks the shell command in a session in no named workspace.
func (l *permLint) fileBlocks(command string) bool {
	return execpolicy.Evaluate(l.snap.Engine(), execpolicy.DefaultTool, map[string]any{"command": command}, "", session.Ask, nil).Kind == execpolicy.BlockCall
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
func reorderedFlags(cmd string, rel release.Release) (string, bool) {
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
	case rel.Has(release.DenyOptionsAnywhere):
		// releases/0.10.1.md N4: a deny's options match wherever they
		// appear after the command word, so moving one slips nothing.
		return "", false
	case i == len(out)-1: // push -f → push x -f
		out = slices.Insert(out, i, "x")
	default: // rm -r / → rm / -r
		out = append(slices.Delete(out, i, i+1), flag)
	}
	slip := strings.Join(out, " ")
	if dialect := shell.DialectOf(rel); dialect.DenyMatch(cmd, slip) || dialect.AllowMatch(cmd, slip) {
		return "", false
	}
	return slip, true
}

// CW205: an allow's command is an arity-aware prefix; only ;, &, | and
// newlines make a chain (docs/codewhale/execpolicy.md §6.2). From 0.10.1 a
// prefix covers only simple commands spelled literally at the front
// (releases/0.10.1.md N5). Every call the message says the allow approves,
// or leaves to ask, is first put to the release's engine over the whole
// file: an allow that does not approve its own command (a deny or an ask
// wins, CW200) gets no CW205, and an example the engine decides otherwise
// is not shown.
func (l *permLint) ridingAllow(i int) {
	fr := l.rules[i]
	r := fr.Rule
	if r.Tool != execpolicy.DefaultTool || r.Action != execpolicy.Allow || r.Command == nil || r.CommandExact || strings.TrimSpace(*r.Command) == "" || ruleIsDead(r, l.rel) {
		return
	}
	sessions, ok := l.sessionsOf(r)
	if !ok {
		return // too many workspaces to judge the claim in each: say nothing
	}
	// Each claim is up to three engine checks per session, on every
	// keystroke: past maxBypassRules allows of a file, CW205 says no more
	// rather than claim unchecked (a file of thousands of rules keeps its
	// speed; docs/diagnostics.md, CW205).
	if l.ridingJudged++; l.ridingJudged > maxBypassRules {
		return
	}
	approves := func(command string) bool {
		for _, cwd := range sessions {
			if execpolicy.Evaluate(l.snap.Engine(), execpolicy.DefaultTool, map[string]any{"command": command}, cwd, session.Ask, nil).Kind != execpolicy.AllowCall {
				return false
			}
		}
		return true
	}
	cmd := strings.TrimSpace(*r.Command)
	if !approves(cmd) {
		return
	}
	var msg string
	if l.rel.Has(release.PrefixGrantEligibility) {
		asks := slices.DeleteFunc([]string{cmd + " > out", cmd + " $(curl example.com)"}, approves)
		msg = fmt.Sprintf("this allow approves `%s` followed by any further arguments without asking; Codewhale %s no longer lets it cover redirections, substitutions, nested code, run-time command words or options written before its words", cmd, l.rel.Name())
		if len(asks) > 0 {
			msg += " (" + backticked(asks) + " ask)"
		}
	} else {
		riding := slices.DeleteFunc([]string{cmd + " > ~/.bashrc", cmd + " $(curl example.com)"}, func(c string) bool { return !approves(c) })
		if len(riding) == 0 {
			return
		}
		msg = fmt.Sprintf("this allow also approves `%s` with redirections and substitutions: it approves %s without asking, since only ;, &, | and newlines make a command chained", cmd, backticked(riding))
	}
	l.add(problem.AllowRedirections, problem.Info, valueSpan(fr, "command"), msg)
}

// maxClaimWorkspaces bounds the sessions a claim about a global rule is
// judged in; a file naming more workspaces gets no such claim.
const maxClaimWorkspaces = 16

// sessionsOf are the session workspaces in which r acts differently enough
// to judge a claim about it: its own workspace for a scoped rule; for a
// global one, a session in no workspace the file names ("") and one in
// each workspace a shell rule names, where that rule may overrule r. ok is
// false when there are more than maxClaimWorkspaces of them.
func (l *permLint) sessionsOf(r execpolicy.Rule) ([]string, bool) {
	if r.Workspace != nil {
		return []string{*r.Workspace}, true
	}
	if l.claimSessions == nil {
		l.claimSessions = []string{""}
		seen := map[string]bool{}
		for _, o := range l.rules {
			if o.Rule.Tool != execpolicy.DefaultTool || o.Rule.Workspace == nil {
				continue
			}
			scope, ok := execpolicy.WorkspaceScope(*o.Rule.Workspace)
			if !ok || seen[scope] {
				continue
			}
			seen[scope] = true
			l.claimSessions = append(l.claimSessions, *o.Rule.Workspace)
		}
	}
	return l.claimSessions, len(l.claimSessions) <= maxClaimWorkspaces+1
}

// backticked is commands quoted as a message cites them: `a`, `b` and `c`.
func backticked(commands []string) string {
	quoted := make([]string, len(commands))
	for i, c := range commands {
		quoted[i] = "`" + problem.Excerpt(c) + "`"
	}
	if len(quoted) < 2 {
		return strings.Join(quoted, "")
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
}

// CW208
func (l *permLint) unevaluatedTool(i int) {
	fr := l.rules[i]
	name := fr.Rule.Tool
	if slices.Contains(execpolicy.EvaluatedTools, name) {
		return
	}
	span := valueSpan(fr, "tool")
	p := l.add(problem.ToolNeverEvaluated, problem.Warning, span,
		fmt.Sprintf("Codewhale's rule layer never evaluates the tool %q: it looks up only %s (the agent's calls are checked under these canonical names), so this rule never applies as a typed rule", name, strings.Join(execpolicy.EvaluatedTools, ", ")))
	if s := suggestTool(name); s != "" {
		p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Change to %q", s), Edits: []problem.Edit{{Span: span, NewText: strconv.Quote(s)}},
			WhyNotSafe: fmt.Sprintf("%q is a guess at the tool you meant, and the rule then starts to apply", s)}}
	}
}

// suggestTool is the evaluated name a rule's tool most likely meant.
func suggestTool(name string) string {
	if s := tool.Semantic(name, nil); slices.Contains(execpolicy.EvaluatedTools, s) {
		return s
	}
	if s, ok := toolAliases[ascii.Lower(strings.TrimSpace(name))]; ok {
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
	l.add(problem.ExactWithoutCommand, problem.Warning, e.KeySpan,
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
	p := l.add(problem.RuleAsArray, problem.Warning, fr.Span,
		fmt.Sprintf("this array is a rule written by position: Codewhale fills the fields %s in that order (left-out ones take their defaults) and reads it as %s; write it as that table so it reads as a rule",
			strings.Join(execpolicy.RuleFields, ", "), table))
	// A comment inside the array would go with the rewrite: then the fix
	// is offered, but never applied in bulk.
	hasComment := tomlHasComment(l.file.Src[fr.Span.Start:fr.Span.End])
	p.Fixes = []problem.Fix{{Title: "Write the rule as a table", Safe: !hasComment, Edits: []problem.Edit{{Span: fr.Span, NewText: table}}}}
	if hasComment {
		p.Fixes[0].WhyNotSafe = "the comment inside the array would be lost"
	}
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
