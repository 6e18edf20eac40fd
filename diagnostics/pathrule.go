package diagnostics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func workspaceDead(r execpolicy.Rule) bool {
	if r.Workspace == nil {
		return false
	}
	_, ok := execpolicy.WorkspaceScope(*r.Workspace)
	return !ok
}

// ruleIsDead: the rule matches no call at all under the release, which
// CW206/CW207 report.
func ruleIsDead(r execpolicy.Rule, rel release.Release) bool {
	return workspaceDead(r) || pathTrouble(r, rel).dead
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
	if fr.Rule.Path != nil && l.rel.Has(release.RootedPathRules) {
		if _, rooted := execpolicy.RootedPath(*fr.Rule.Path, false); rooted {
			// releases/0.10.0.md A.2.2: the rooted channel needs no session
			// workspace, but the rule's own workspace clause still applies.
			msg += fmt.Sprintf(" (in Codewhale %s its rooted path would match in every session without the workspace key)", l.rel.Name())
		}
	}
	l.add(problem.WorkspaceNeverMatches, problem.Warning, valueSpan(fr, "workspace"), msg)
}

// CW207
func (l *permLint) literalPath(i int) {
	fr := l.rules[i]
	t := pathTrouble(fr.Rule, l.rel)
	if t.msg == "" {
		return
	}
	p := l.add(problem.PathNeverMatches, problem.Warning, valueSpan(fr, "path"), t.msg)
	if t.respelled != "" {
		p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Change to %q", t.respelled), Edits: []problem.Edit{{Span: valueSpan(fr, "path"), NewText: strconv.Quote(t.respelled)}},
			WhyNotSafe: "the rule then starts to match the file it names, which it never matched before"}}
	}
}

// pathFinding is how a rule's path matches less than it reads.
type pathFinding struct {
	msg string
	// dead: the rule matches no call at all.
	dead bool
	// respelled is the spelling the rule most likely meant, offered as a
	// fix, or "".
	respelled string
}

// plainRooted is a folded rooted path without empty or `.` components and
// without a trailing `/`: the spelling a tool's call path has.
func plainRooted(folded string) string {
	root := "/"
	switch {
	case strings.HasPrefix(folded, "~/"):
		root = "~/"
	case !strings.HasPrefix(folded, "/"):
		root = folded[:3]
	}
	parts := slices.DeleteFunc(strings.Split(folded[len(root):], "/"), func(c string) bool { return c == "" || c == "." })
	return root + strings.Join(parts, "/")
}

// pathTrouble says how a rule's path matches less than it reads under the
// release: path rules name one exact file, normalised relative to the
// workspace (docs/codewhale/execpolicy.md §4), and from 0.10.0 a rooted
// path also matches that exact string anywhere (releases/0.10.0.md A.2.2).
func pathTrouble(r execpolicy.Rule, rel release.Release) pathFinding {
	if r.Path == nil {
		return pathFinding{}
	}
	p := *r.Path
	trimmed := strings.TrimSpace(p)
	folded, rooted := execpolicy.RootedPath(p, false)
	rootedMatches := rooted && rel.Has(release.RootedPathRules)
	switch {
	case trimmed == "":
		return pathFinding{msg: "an empty path never matches: Codewhale cannot normalise it, so this rule applies to no call", dead: true}
	case execpolicy.HasDotDot(folded):
		if rel.Has(release.DotDotPathsMeetDeny) && r.Action != execpolicy.Allow {
			// releases/0.10.1.md N8: a call path with `..` meets every deny
			// and ask path rule, whatever the rule's own path.
			return pathFinding{msg: fmt.Sprintf("a path with a `..` component never matches as written: Codewhale %s does not resolve traversal; this %s rule meets only calls whose own path has a `..` component, as every deny and ask path rule does", rel.Name(), r.Action)}
		}
		return pathFinding{msg: "a path with a `..` component never matches: Codewhale does not resolve traversal, so neither this rule nor a call spelled with `..` matches", dead: true}
	case r.Tool == "exec_shell":
		return pathFinding{msg: "exec_shell calls carry no path, so this rule never matches as a typed rule", dead: true}
	case rootedMatches:
		// The workspace clause, if any, still applies; the path itself
		// matches inside or outside it.
	case r.Workspace != nil && !workspaceDead(r):
		if _, ok := execpolicy.RelPath(p, *r.Workspace, execpolicy.HostFoldsCase()); !ok {
			return pathFinding{msg: fmt.Sprintf("this path never matches: it is not inside the rule's workspace %q (or is drive-relative), and Codewhale %s only compares paths inside the workspace", *r.Workspace, rel.Name()), dead: true}
		}
	}
	if !rootedMatches {
		if _, okPosix := execpolicy.RelPath(p, "/", false); !okPosix {
			if _, okDrive := execpolicy.RelPath(p, "c:/", false); !okDrive {
				return pathFinding{msg: "this path never matches: Codewhale cannot normalise a drive-relative path", dead: true}
			}
		}
	}
	var f pathFinding
	var notes []string
	if strings.ContainsAny(p, "*?[") {
		notes = append(notes, fmt.Sprintf("`*`, `?` and `[` are literal here (path rules have no globs), so this matches only a file named exactly %q", trimmed))
	}
	switch {
	case rootedMatches:
		if plain := plainRooted(folded); plain != folded {
			notes = append(notes, fmt.Sprintf("Codewhale %s compares a rooted path with the call's path byte for byte (`//`, `/./` and a trailing `/` are not collapsed), so this matches only a call spelled exactly %q, never %q", rel.Name(), trimmed, plain))
			f.respelled = plain
		}
	case strings.Contains(p, "~") && rel.Has(release.RootedPathRules):
		notes = append(notes, fmt.Sprintf("`~` is not expanded and only `~/…` is a rooted path in Codewhale %s: this relative path matches only a path literally spelled with `~` inside the workspace", rel.Name()))
	case strings.Contains(p, "~"):
		notes = append(notes, "`~` is not expanded: it matches only a path literally spelled with `~`")
	case rooted && r.Workspace == nil:
		notes = append(notes, fmt.Sprintf("Codewhale %s compares paths relative to the session's workspace: this absolute path matches only in a session whose workspace contains it, never a file outside the workspace (rooted path rules match anywhere from Codewhale 0.10.0)", rel.Name()))
	}
	if !rootedMatches && (strings.HasSuffix(trimmed, "/") || strings.HasSuffix(trimmed, `\`)) {
		notes = append(notes, fmt.Sprintf("path rules have no directory semantics: this matches only %q itself, not the files in it", strings.TrimRight(trimmed, `/\`)))
	}
	f.msg = strings.Join(notes, "; ")
	return f
}
