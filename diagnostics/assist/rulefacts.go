package assist

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// ruleAt is the permissions.toml rule whose header or keys hold offset.
func ruleAt(doc *tomldoc.Doc, offset int) (index int, r execpolicy.Rule, ok bool) {
	for i, item := range ruleItems(doc) {
		if within(entryExtent(doc.Src, item), offset) {
			return i, ruleOf(item.Table), true
		}
	}
	return 0, execpolicy.Rule{}, false
}

// ruleItems are the tables of the `rules` array.
func ruleItems(doc *tomldoc.Doc) []*tomldoc.Value {
	e := doc.Root.Get("rules")
	if e == nil || e.Value.Kind != tomldoc.Array {
		return nil
	}
	var out []*tomldoc.Value
	for _, item := range e.Value.Items {
		if item.Kind == tomldoc.Table {
			out = append(out, item)
		}
	}
	return out
}

func ruleOf(t *tomldoc.TableValue) execpolicy.Rule { return ruleFromFields(tableFields(t)) }

// ruleFactsAt says in plain words what the rule under the cursor does.
func ruleFactsAt(f *execpolicy.File, offset int, snap *config.Snapshot, rel release.Release) string {
	if f.Doc == nil {
		return ""
	}
	i, r, ok := ruleAt(f.Doc, offset)
	if !ok {
		return ""
	}
	root := rootNode(config.KindPermissions, rel)
	var b strings.Builder
	fmt.Fprintf(&b, "**Rule %d** %s · %s", i+1, code(r.Label()), r.Action)
	fmt.Fprintf(&b, "\n\nIn Codewhale %s it matches:", rel.Name())
	for _, line := range matchInWords(r, rel) {
		b.WriteString("\n- " + line)
	}
	b.WriteString("\n")
	for _, v := range root.walk([]string{"rules", "action"}).enum() {
		if v.value == r.Action.String() {
			b.WriteString("\n- **Does** " + v.meaning)
		}
	}
	b.WriteString("\n- **Global prefix** " + promotionInWords(r, rel))
	if snap != nil && snap.Permissions != nil {
		b.WriteString("\n- **Ranking** " + rankingInWords(r, snap.Permissions))
	}
	if !f.Accepted {
		b.WriteString("\n\n*permissions.toml is rejected as it stands (see its errors): Codewhale refuses to start and no rule applies.*")
	}
	return b.String()
}

// matchInWords is one bullet per field of the rule: what each requires of
// a call.
func matchInWords(r execpolicy.Rule, rel release.Release) []string {
	shellTool := r.Tool == "exec_shell"
	evaluated := slices.Contains(execpolicy.EvaluatedTools, r.Tool)
	toolWords := code(r.Tool) + " calls"
	if !evaluated {
		toolWords += ": a name Codewhale's rule layer never evaluates, so the rule never matches"
	}
	out := []string{"**Tool** " + toolWords}
	if c := r.Command; c != nil {
		trimmed := strings.TrimSpace(*c)
		var words string
		switch {
		case r.CommandExact:
			words = "exactly " + code(trimmed) + " (trimmed; case and inner spaces count)"
		case trimmed == "":
			words = "no word that is not a flag (file tools always pass an empty command: for them, every call)"
		default:
			words = "starts with the words " + code(trimmed) + " (case-insensitive, spaces collapsed; a longer word does not match)"
			// Flags between the words keep the command's class, which an
			// allow or ask matches by; from 0.10.1 it must also be spelled
			// at the front (N5), while a deny skips flags at every release.
			dialect := shell.DialectOf(rel)
			if p := strings.Fields(trimmed); len(p) > 1 && (!dialect.LiteralLeading || r.Action == execpolicy.Deny) && dialect.Classify(trimmed) == ascii.Lower(trimmed) {
				words += "; flags between the words match too (" + code(p[0]+" --flag "+strings.Join(p[1:], " ")) + ")"
			}
			switch {
			case diagnostics.StarIsWildcard(r, rel) && slices.Contains(strings.Fields(trimmed), "*"):
				words += "; each `*` word matches any number of command words"
			case slices.Contains(strings.Fields(trimmed), "*"):
				words += "; `*` is a literal word here, not a wildcard"
			}
			if r.Action == execpolicy.Allow && rel.Has(release.PrefixGrantEligibility) {
				words += "; only a simple command spelled with these words at the front (no redirection, substitution, nested code or run-time command word)"
			}
		}
		if evaluated && !shellTool && trimmed != "" {
			words += "; file tools pass an empty command, so this never matches"
		}
		out = append(out, "**Command** "+words)
	} else if shellTool {
		out = append(out, "**Command** any")
	}
	if r.Path != nil {
		words := code(*r.Path) + " only (workspace-relative after normalisation; no globs, one file)"
		_, rooted := execpolicy.RootedPath(*r.Path, false)
		switch {
		case rooted && rel.Has(release.RootedPathRules):
			words = code(*r.Path) + " exactly as written, inside or outside the workspace (a rooted path is compared byte for byte: `~` is not expanded, `//` and a trailing `/` are not collapsed; no globs, one file)"
		case rooted:
			words += "; an absolute path outside the session's workspace never matches"
		}
		if r.Action != execpolicy.Allow && rel.Has(release.DotDotPathsMeetDeny) {
			words += "; a call whose path has a `..` component meets it too"
		}
		if shellTool {
			words += "; shell calls carry no path, so this never matches"
		}
		out = append(out, "**Path** "+words)
	}
	switch {
	case r.Workspace == nil:
		out = append(out, "**Workspace** every workspace")
	default:
		if _, ok := execpolicy.WorkspaceScope(*r.Workspace); ok {
			out = append(out, "**Workspace** only sessions whose workspace root is "+code(*r.Workspace))
		} else {
			out = append(out, "**Workspace** none: "+code(*r.Workspace)+" is not an absolute workspace root (relative, `/`, or with `..`), so the rule never matches")
		}
	}
	return out
}

func promotionInWords(r execpolicy.Rule, rel release.Release) string {
	rs := execpolicy.CompileRules([]execpolicy.Rule{r})
	switch {
	case len(rs.DeniedPrefixes) > 0:
		words := "promoted to the hard-deny prefix " + code(rs.DeniedPrefixes[0]) + ": any shell command with a segment matching it is forbidden, whatever the tool, path or repository, before every typed rule (even a matching allow)."
		if rel.Has(release.DenyTargetsFromExpander) {
			// releases/0.10.0.md A.2.3, A.3.2: heredoc data is no target.
			words += " Only the commands the shell would run are matched: text inside heredoc data (`<<EOF` bodies) or quotes is not."
		}
		return words
	case len(rs.TrustedPrefixes) > 0:
		return "promoted to the trusted prefix " + code(rs.TrustedPrefixes[0]) + ", for every tool, path and repository: an unchained command matching it needs no approval when no typed rule decides (in the interactive TUI such a match alone changes no verdict)."
	case r.Action == execpolicy.Ask:
		return "none: ask rules are never promoted."
	case r.Command == nil:
		return "none: the rule has no command."
	case r.CommandExact:
		return "none: an exact command is not promoted, so this rule is only a typed rule (weaker than a hard-deny prefix: no flag skipping, no segment expansion)."
	case r.Action == execpolicy.Deny && rel.Has(release.TypedDenyMatcher):
		return "none: a workspace-scoped rule is not promoted; within its workspace it matches like a deny prefix (flags skipped, `*` a wildcard, `/bin/rm` is `rm`)."
	default:
		return "none: a workspace-scoped rule is not promoted."
	}
}

func rankingInWords(r execpolicy.Rule, f *execpolicy.File) string {
	others := 0
	for _, o := range f.Rules {
		if o.Rule.Tool == r.Tool && !execpolicy.SameRecord(o.Rule, r) {
			others++
		}
	}
	return fmt.Sprintf("specificity %d. When several rules match a call, deny beats ask beats allow whatever their order; among equal actions the higher specificity wins, then the later rule. The loaded permissions.toml has %d other rule(s) for %s.",
		r.Specificity(), others, code(r.Tool))
}
