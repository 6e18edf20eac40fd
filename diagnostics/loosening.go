package diagnostics

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/repolaw"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// lintLoosening compares the files with their baselines (CW500): it loads
// the baseline versions the way Codewhale would and reports, in the new
// text, every way the effective policy got looser. It returns the
// repository's policy files that were deleted since the baseline and so
// loosened it (deletedPolicyFiles), each with its findings, as the work
// tree has no file to put them on.
func lintLoosening(in Input, snap *config.Snapshot, out map[string]*FileResult) []*FileResult {
	buffers := config.Buffers{}
	edited := false
	for _, f := range snap.Files {
		if src, ok := in.Baseline(f.Path); ok {
			buffers[f.Path] = src
			edited = edited || !bytes.Equal(src, f.Src)
		}
	}
	deleted := deletedPolicyFiles(in, snap)
	for path, src := range deleted {
		buffers[path] = src
		edited = true
	}
	if !edited {
		return nil // every baseline is the text itself: nothing can be looser
	}
	opts := in.Options
	opts.Buffers = buffers // files without a baseline are read from disk
	base := config.Load(opts)
	if len(base.Policy.Fatal) > 0 {
		// Codewhale did not start with the baseline: it denied everything,
		// so nothing can be looser than that.
		return nil
	}
	for path := range deleted {
		kind, _ := KindOf(snap.Paths, path)
		out[path] = &FileResult{Path: path, Kind: kind, State: config.Missing}
	}
	d := &looseness{base: base, now: snap, out: out}
	d.posture()
	d.sandbox()
	d.addedSettings()
	d.shell()
	d.rules()
	d.hooks()
	d.law()
	var gone []*FileResult
	for path := range deleted {
		if len(out[path].Problems) > 0 {
			gone = append(gone, out[path])
		} else {
			delete(out, path)
		}
	}
	return gone
}

// deletedPolicyFiles are the repository's policy files that the work tree
// no longer has (no file, no open buffer) and the baseline has, with
// their baseline text: the project overlay, the project hooks.toml and a
// constitution.json where the work tree has none. Deleting one deletes
// every restriction it held. Linting named files (Input.Only) compares
// those alone.
func deletedPolicyFiles(in Input, snap *config.Snapshot) map[string][]byte {
	deleted := map[string][]byte{}
	if len(in.Only) > 0 {
		return deleted
	}
	candidates := []string{snap.Paths.Overlay, snap.Paths.ProjectHooks}
	if snap.File(config.KindConstitution) == nil && in.Options.Workspace != "" {
		candidates = append(candidates, repolaw.Candidates(in.Options.Workspace)...)
	}
	for _, path := range candidates {
		if _, open := in.Options.Buffers[path]; path == "" || open {
			continue
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if src, ok := in.Baseline(path); ok {
			deleted[path] = src
		}
	}
	return deleted
}

type looseness struct {
	base, now *config.Snapshot
	out       map[string]*FileResult
}

func (d *looseness) report(path string, span problem.Span, format string, args ...any) {
	f := d.out[path]
	if f == nil {
		return
	}
	f.Problems = append(f.Problems, problem.Problem{Code: problem.PolicyLoosened, Severity: problem.Warning, Span: span,
		Message: "loosens policy: " + fmt.Sprintf(format, args...)})
}

// baseFile is what the baseline load read for path.
func (d *looseness) baseFile(path string) *config.File {
	for _, f := range d.base.Files {
		if f.Path == path {
			return f
		}
	}
	return &config.File{Path: path}
}

// changedKey finds, in the TOML files that differ from their baseline, the
// first of keys (each a path of table keys) whose value changed: its value
// span in the new text, or the start of the file when it was removed.
func (d *looseness) changedKey(keys ...[]string) (string, problem.Span, bool) {
	var paths []string
	for p, f := range d.out {
		if f.Kind != config.KindConstitution && !bytes.Equal(f.Src, d.baseFile(p).Src) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		now, before := d.out[p].Doc, d.baseFile(p).Doc
		// Arrays and tables have no Raw text: compare what is written.
		text := func(doc *tomldoc.Doc, e *tomldoc.Entry) string {
			if s := e.Value.Span; s.Start >= 0 && s.Start <= s.End && s.End <= len(doc.Src) {
				return string(doc.Src[s.Start:s.End])
			}
			return e.Value.Raw
		}
		for _, key := range keys {
			n, b := lookup(now, key), lookup(before, key)
			switch {
			case n != nil && (b == nil || text(before, b) != text(now, n)):
				return p, n.Value.Span, true
			case n == nil && b != nil:
				return p, problem.Span{}, true
			}
		}
	}
	return "", problem.Span{}, false
}

func lookup(doc *tomldoc.Doc, key []string) *tomldoc.Entry {
	if doc == nil {
		return nil
	}
	t := doc.Root
	for _, k := range key[:len(key)-1] {
		t, _ = t.Sub(k)
	}
	return t.Get(key[len(key)-1])
}

func describeSetting(s config.Setting) string {
	if !s.Set {
		return "unset"
	}
	return strconv.Quote(s.Value)
}

func (d *looseness) posture() {
	b, n := d.base.Policy, d.now.Policy
	if n.Posture.Strictness() >= b.Posture.Strictness() {
		return
	}
	path, span, ok := d.changedKey([]string{"approval_policy"}, []string{"approvalPolicy"}, []string{"yolo"}, []string{"permission_posture"}, []string{"default_mode"})
	if !ok {
		return
	}
	if describeSetting(b.ApprovalPolicy) != describeSetting(n.ApprovalPolicy) {
		d.report(path, span, "approval_policy was %s, now %s (posture %s → %s)", describeSetting(b.ApprovalPolicy), describeSetting(n.ApprovalPolicy), b.Posture.Label(), n.Posture.Label())
		return
	}
	d.report(path, span, "the posture was %s, now %s (%s)", b.Posture.Label(), n.Posture.Label(), n.PostureSource)
}

// sandboxStrictness is how much a configured sandbox_mode clamps the
// default sandbox; Codewhale compares it exactly (docs/codewhale/pipeline.md §9.1), so a
// mis-cased value clamps nothing.
func sandboxStrictness(s config.Setting) int {
	switch {
	case !s.Set:
		return 0
	case s.Value == "read-only":
		return 2
	case s.Value == "workspace-write":
		return 1
	}
	return 0
}

func (d *looseness) sandbox() {
	b, n := d.base.Policy.SandboxMode, d.now.Policy.SandboxMode
	if sandboxStrictness(n) >= sandboxStrictness(b) {
		return
	}
	if path, span, ok := d.changedKey([]string{"sandbox_mode"}, []string{"sandboxMode"}); ok {
		d.report(path, span, "sandbox_mode was %s, now %s", describeSetting(b), describeSetting(n))
	}
}

func (d *looseness) shell() {
	b, n := d.base.Policy.AllowShell, d.now.Policy.AllowShell
	if !b.Set || b.Value || (n.Set && !n.Value) {
		return
	}
	now := "true"
	if !n.Set {
		now = "unset (the interactive TUI offers the shell)"
	}
	if path, span, ok := d.changedKey([]string{"allow_shell"}); ok {
		d.report(path, span, "allow_shell was false, now %s", now)
	}
}

// rules compares the permission rules, each new rule paired with the
// baseline rule it most likely is: an identical one, else one for the same
// tool, command and path, else (when as many rules were added as removed)
// the next in file order.
func (d *looseness) rules() {
	bf, nf := d.base.Permissions, d.now.Permissions
	if bf == nil || nf == nil || !bf.Accepted || !nf.Accepted {
		return
	}
	path := d.now.Paths.Permissions
	baseLines := problem.NewLines(bf.Src)
	pairs, removed, added := pairRules(bf.Rules, nf.Rules)
	for _, b := range removed {
		if b.Rule.Action == execpolicy.Deny && !ruleIsDead(b.Rule, d.base.Release) {
			d.report(path, problem.Span{}, "a deny was removed: the baseline denied %s (baseline line %d), no rule does now", b.Rule.Label(), baseLines.LineOf(b.Span.Start)+1)
		}
	}
	for _, n := range added {
		if n.Rule.Action == execpolicy.Allow && !ruleIsDead(n.Rule, d.now.Release) {
			d.report(path, n.Span, "a new allow rule %s, not in the baseline", n.Rule.Label())
		}
	}
	rel := d.now.Release
	dialect := shell.DialectOf(rel)
	for _, p := range pairs {
		b, n := p[0], p[1]
		switch {
		case n.Rule.Action < b.Rule.Action:
			d.report(path, valueSpan(n, "action"), "action was %q, now %q", b.Rule.Action, n.Rule.Action)
		case n.Rule.Action == b.Rule.Action && n.Rule.Action != execpolicy.Allow && rootedToRelative(b.Rule, n.Rule, rel):
			d.report(path, valueSpan(n, "path"), "this %s's path was the rooted %q, now the relative %q: Codewhale %s matched the rooted path inside or outside the workspace, the relative one only inside it", n.Rule.Action, *b.Rule.Path, *n.Rule.Path, rel.Name())
		case n.Rule.Action != b.Rule.Action || n.Rule.Action == execpolicy.Ask:
		case n.Rule.Action == execpolicy.Allow && !covers(b.Rule, n.Rule, dialect, nil):
			span, what := ruleChange(b, n)
			d.report(path, span, "this allow's %s (it now matches calls the baseline rule did not)", what)
		case n.Rule.Action == execpolicy.Deny && StarIsWildcard(b.Rule, rel) && hasStarWord(*b.Rule.Command) && (n.Rule.Command == nil || !hasStarWord(*n.Rule.Command)) && !denyStillCovers(b.Rule, n.Rule, rel):
			d.report(path, valueSpan(n, "command"), "this deny lost its `*` wildcard: command was %q, now %s; in Codewhale %s the `*` matched any command words, so it no longer blocks every command the baseline deny blocked", *b.Rule.Command, optQuote(n.Rule.Command), rel.Name())
		case n.Rule.Action == execpolicy.Deny && (!denyStillCovers(b.Rule, n.Rule, rel) || b.Rule.Promoted() && !n.Rule.Promoted()):
			span, what := ruleChange(b, n)
			d.report(path, span, "this deny's %s (it no longer blocks every call the baseline deny blocked)", what)
		}
	}
}

// denyStillCovers: the new deny blocks at least what the baseline deny
// did under the release. A command cut down to a prefix of the old one
// (`git push --force` → `git push`), or widened by a wildcard the release
// reads (`rm -rf /` → `rm * /`), still catches the old one's calls.
func denyStillCovers(b, n execpolicy.Rule, rel release.Release) bool {
	dialect := shell.DialectOf(rel)
	if n.Command != nil && b.Command != nil && !n.CommandExact && !b.CommandExact {
		prefix := dialect.AllowMatch(*n.Command, *b.Command) && dialect.DenyMatch(*n.Command, *b.Command)
		wildcard := StarIsWildcard(n, rel) && b.Promoted() == n.Promoted() && dialect.DenyMatch(*n.Command, *b.Command)
		if prefix || wildcard {
			n.Command = b.Command
		}
	}
	return covers(n, b, dialect, nil)
}

// rootedToRelative: a path rule the release matched anywhere (rooted,
// docs/codewhale/releases/0.10.0.md A.2.2) now has a relative path.
func rootedToRelative(b, n execpolicy.Rule, rel release.Release) bool {
	if b.Path == nil || n.Path == nil || !rel.Has(release.RootedPathRules) {
		return false
	}
	_, wasRooted := execpolicy.RootedPath(*b.Path, false)
	_, isRooted := execpolicy.RootedPath(*n.Path, false)
	return wasRooted && !isRooted
}

func optQuote(s *string) string {
	if s == nil {
		return "absent"
	}
	return strconv.Quote(*s)
}

// pairRules matches the new rules with the baseline ones; identical rules
// pair silently.
func pairRules(base, now []execpolicy.FileRule) (pairs [][2]execpolicy.FileRule, removed, added []execpolicy.FileRule) {
	usedB, usedN := make([]bool, len(base)), make([]bool, len(now))
	match := func(same func(b, n execpolicy.Rule) bool, keep bool) {
		for j, n := range now {
			for i, b := range base {
				if !usedB[i] && !usedN[j] && same(b.Rule, n.Rule) {
					usedB[i], usedN[j] = true, true
					if keep {
						pairs = append(pairs, [2]execpolicy.FileRule{b, n})
					}
				}
			}
		}
	}
	match(execpolicy.SameRecord, false)
	match(func(b, n execpolicy.Rule) bool {
		return b.Tool == n.Tool && sameString(b.Command, n.Command) && sameString(b.Path, n.Path)
	}, true)
	for i, b := range base {
		if !usedB[i] {
			removed = append(removed, b)
		}
	}
	for j, n := range now {
		if !usedN[j] {
			added = append(added, n)
		}
	}
	if len(removed) == len(added) {
		for i := range removed {
			pairs = append(pairs, [2]execpolicy.FileRule{removed[i], added[i]})
		}
		removed, added = nil, nil
	}
	return pairs, removed, added
}

func sameString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ruleChange names the first field that differs between a baseline rule
// and its new version, and where: its value, or the rule's header when the
// key is gone.
func ruleChange(b, n execpolicy.FileRule) (problem.Span, string) {
	fields := []struct {
		key           string
		before, after string
	}{
		{"tool", strconv.Quote(b.Rule.Tool), strconv.Quote(n.Rule.Tool)},
		{"command", optQuote(b.Rule.Command), optQuote(n.Rule.Command)},
		{"command_exact", strconv.FormatBool(b.Rule.CommandExact), strconv.FormatBool(n.Rule.CommandExact)},
		{"path", optQuote(b.Rule.Path), optQuote(n.Rule.Path)},
		{"workspace", optQuote(b.Rule.Workspace), optQuote(n.Rule.Workspace)},
	}
	for _, f := range fields {
		if f.before != f.after {
			return valueSpan(n, f.key), fmt.Sprintf("%s was %s, now %s", f.key, f.before, f.after)
		}
	}
	return n.Span, "rule changed"
}

// hooks reports tool_call_before gates that are gone or that now let the
// call run when they fail.
func (d *looseness) hooks() {
	d.compareHooks(d.base.Hooks, d.now.Hooks)
	if !d.base.ProjectHooksLoaded && !d.now.ProjectHooksLoaded {
		// This machine runs neither version of the project's hooks (the
		// workspace is not trusted here, or the bytes not approved: a CI
		// runner), but whoever trusts the repository runs what the file
		// says, so a gate removed from it loosens their policy.
		d.compareHooks(projectFileHooks(d.base), projectFileHooks(d.now))
	}
}

// projectFileHooks are the hooks the project hooks.toml of snap holds,
// whether or not the snapshot's user trusts and loads it.
func projectFileHooks(snap *config.Snapshot) hooks.Config {
	f := snap.File(config.KindProjectHooks)
	if f == nil || f.Doc == nil {
		return hooks.Config{Enabled: true}
	}
	cfg, _ := hooks.FromProjectFile(f.Doc, snap.Release)
	return cfg
}

// compareHooks reports each tool_call_before gate of b that n lost or
// made fail open.
func (d *looseness) compareHooks(b, n hooks.Config) {
	var before []hooks.Hook
	for _, h := range b.Hooks {
		if h.Event == hooks.ToolCallBefore {
			before = append(before, h)
		}
	}
	if len(before) == 0 {
		return
	}
	if !n.Enabled {
		if path, span, ok := d.changedKey([]string{"hooks", "enabled"}); ok {
			d.report(path, span, "[hooks] enabled was true, now false: %d tool_call_before hook(s) no longer run", len(before))
		}
		return
	}
	used := make([]bool, len(n.Hooks))
	pick := func(same func(a, b hooks.Hook) bool, h hooks.Hook) (hooks.Hook, bool) {
		for i, c := range n.Hooks {
			if !used[i] && c.Event == hooks.ToolCallBefore && same(h, c) {
				used[i] = true
				return c, true
			}
		}
		return hooks.Hook{}, false
	}
	for _, h := range before {
		c, ok := pick(func(a, b hooks.Hook) bool { return a.Source == b.Source && a.Command == b.Command && a.Name == b.Name }, h)
		if !ok {
			c, ok = pick(func(a, b hooks.Hook) bool { return a.Source == b.Source && a.Index == b.Index }, h)
		}
		path := d.hookFile(h.Source)
		if !ok {
			d.report(path, problem.Span{}, "the tool_call_before hook %s was removed: it no longer runs before tool calls", hookName(h))
			continue
		}
		table := tableWithSpan(d.out[path], c.Span)
		at := func(key string) problem.Span {
			if e := table.Get(key); e != nil {
				return e.Value.Span
			}
			return c.Span
		}
		switch {
		case !h.ContinueOnError && c.ContinueOnError:
			d.report(path, at("continue_on_error"), "the tool_call_before hook %s: continue_on_error was false, now true (a failing or timed-out gate now lets the call run)", hookName(c))
		case !h.Background && c.Background:
			d.report(path, at("background"), "the tool_call_before hook %s: background was false, now true (a background hook only observes; it cannot stop a call)", hookName(c))
		}
	}
}

func (d *looseness) hookFile(s hooks.Source) string {
	if s == hooks.Project {
		return d.now.Paths.ProjectHooks
	}
	return d.now.Paths.Config
}

// hookName names a hook without its command, which may hold a secret.
func hookName(h hooks.Hook) string {
	if h.Name != "" {
		return strconv.Quote(h.Name)
	}
	return fmt.Sprintf("#%d", h.Index+1)
}

// tableWithSpan is the table of f's TOML text written at span (a header
// or an inline table), or nil.
func tableWithSpan(f *FileResult, span problem.Span) *tomldoc.TableValue {
	if f == nil {
		return nil
	}
	doc := f.Doc
	if doc == nil {
		return nil
	}
	var walk func(v *tomldoc.Value) *tomldoc.TableValue
	walk = func(v *tomldoc.Value) *tomldoc.TableValue {
		switch v.Kind {
		case tomldoc.Table:
			if v.Span == span {
				return v.Table
			}
			for _, e := range v.Table.Entries {
				if t := walk(e.Value); t != nil {
					return t
				}
			}
		case tomldoc.Array:
			for _, item := range v.Items {
				if t := walk(item); t != nil {
					return t
				}
			}
		}
		return nil
	}
	return walk(&tomldoc.Value{Kind: tomldoc.Table, Table: doc.Root, Span: problem.Span{Start: -1, End: -1}})
}

// law reports protected invariants that are gone, hold less, or only ask.
func (d *looseness) law() {
	f := d.now.File(config.KindConstitution)
	if f == nil {
		// Deleted since the baseline: every invariant went with it.
		if f = d.base.File(config.KindConstitution); f == nil {
			return
		}
	}
	now := slices.Clone(d.now.Law.Rules)
	for _, b := range d.base.Law.Rules {
		i := slices.IndexFunc(now, func(r repolaw.Rule) bool { return r.Text == b.Text })
		if i < 0 {
			d.report(f.Path, problem.Span{}, "the invariant %q was removed: %s is no longer protected", b.Text, strings.Join(b.Patterns, ", "))
			continue
		}
		n := now[i]
		now = slices.Delete(now, i, i+1)
		var lost []string
		for _, p := range b.Patterns {
			if !slices.Contains(n.Patterns, p) {
				lost = append(lost, p)
			}
		}
		switch {
		case b.Action == repolaw.Block && n.Action == repolaw.Ask:
			d.report(f.Path, jsonActionSpan(f.Src, n.Span), "the invariant %q: action was \"block\", now \"ask\" (a human can now approve writes to %s)", n.Text, strings.Join(n.Patterns, ", "))
		case len(lost) > 0:
			d.report(f.Path, n.Span, "the invariant %q: paths were %s, now %s", n.Text, strings.Join(b.Patterns, ", "), strings.Join(n.Patterns, ", "))
		}
	}
}

// jsonActionSpan finds the string value of `"action"` inside an invariant
// object's text, else the object.
func jsonActionSpan(src []byte, obj problem.Span) problem.Span {
	if obj.Start < 0 || obj.End > len(src) || obj.Start > obj.End {
		return obj
	}
	text := src[obj.Start:obj.End]
	k := bytes.Index(text, []byte(`"action"`))
	if k < 0 {
		return obj
	}
	i := k + len(`"action"`)
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == ':') {
		i++
	}
	if i >= len(text) || text[i] != '"' {
		return obj
	}
	end := bytes.IndexByte(text[i+1:], '"')
	if end < 0 {
		return obj
	}
	return problem.Span{Start: obj.Start + i, End: obj.Start + i + end + 2}
}
