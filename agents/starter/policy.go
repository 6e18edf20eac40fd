package starter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Denied are the destructive commands the starter policy denies on the
// whole machine: force pushes, publishing, deleting the root or the home.
// Each is a deny without workspace or command_exact, so Codewhale also
// makes it a hard-deny prefix (execpolicy.md §2.2), the strongest form.
var Denied = []string{
	"git push --force",
	"git push --force-with-lease",
	"git push -f",
	"npm publish",
	"pnpm publish",
	"yarn publish",
	"cargo publish",
	"twine upload",
	"poetry publish",
	"uv publish",
	"gem push",
	"rm -rf /",
	"rm -rf ~",
}

// Marker starts the comment above the rules init appends.
const Marker = "# codewhale-ls init:"

// Rules are the rules the starter policy wants for the repository at
// workspaces (absolute spellings of one directory): an allow per found
// command, scoped to each spelling, then the machine-wide denies. The
// hook decides a call in the workspace as spelled and with its symlinks
// resolved, and the stricter verdict stands (docs/agents.md), so an allow
// must name both where they differ.
func Rules(workspaces []string, found []Found) []execpolicy.Rule {
	var out []execpolicy.Rule
	for _, ws := range workspaces {
		for _, f := range found {
			out = append(out, execpolicy.Rule{Tool: "exec_shell", Command: ptr(f.Command), CommandExact: f.Exact, Workspace: ptr(ws), Action: execpolicy.Allow})
		}
	}
	for _, c := range Denied {
		out = append(out, execpolicy.Rule{Tool: "exec_shell", Command: ptr(c), Action: execpolicy.Deny})
	}
	return out
}

func ptr(s string) *string { return &s }

// Dropped is a wanted rule that was not written, and why.
type Dropped struct {
	Rule   execpolicy.Rule
	Reason string
}

// Result is what Append makes of a permissions.toml.
type Result struct {
	Content []byte // the new file; the old one when nothing is added
	Added   []execpolicy.Rule
	// Present counts the wanted rules the file already holds.
	Present int
	Dropped []Dropped
}

// Lint returns the problems of warning or error severity that a
// permissions.toml holding content has, at any release.
type Lint func(content []byte) []problem.Problem

// Append adds to src (a permissions.toml; nil when missing) the rules
// it lacks, below a marked comment naming workspace, as `[[rules]]`
// tables after every byte of src. A rule already recorded (all six fields
// equal) is not added again, so a second run adds nothing; no rule of src
// is ever changed or removed. A rule that lint finds a warning or an
// error in (shadowed by a rule of the user's, say) is dropped and
// reported, until the appended part lints clean. src that Codewhale would
// not load, or that writes its rules as `rules = [...]`, is refused.
func Append(src []byte, workspace string, wanted []execpolicy.Rule, lint Lint) (Result, error) {
	file, problems := execpolicy.ParseFile(src)
	for _, p := range problems {
		if p.Severity == problem.Error {
			return Result{}, fmt.Errorf("it does not load (%s: %s), so Codewhale would refuse to start; fix it first (codewhale-ls check)", p.Code, p.Message)
		}
	}
	if !file.Accepted {
		return Result{}, errors.New("it does not load, so Codewhale would refuse to start; fix it first (codewhale-ls check)")
	}
	if file.Doc != nil {
		if e := file.Doc.Root.Get("rules"); e != nil && e.Value.Kind == tomldoc.Array && !e.Value.IsArrayOfTables() {
			return Result{}, errors.New("it writes its rules as `rules = [...]`, after which `[[rules]]` tables cannot follow; move them to `[[rules]]` tables, or add the rules by hand")
		}
	}
	res := Result{Content: src}
	existing := file.RuleValues()
	var fresh []execpolicy.Rule
	for _, r := range wanted {
		if contains(existing, r) {
			res.Present++
		} else if !contains(fresh, r) {
			fresh = append(fresh, r)
		}
	}
	for len(fresh) > 0 {
		base := string(src) + policyfile.SeparatorAfter(src)
		text, spans := block(workspace, fresh)
		content := []byte(base + text)
		bad := map[int]string{}
		for _, p := range lint(content) {
			if p.Span.Start < len(base) {
				continue // the user's own rules: not ours to judge
			}
			i := entryAt(spans, p.Span.Start-len(base))
			if i < 0 {
				return Result{}, fmt.Errorf("the starter rules would not check clean (%s: %s)", p.Code, p.Message)
			}
			if _, seen := bad[i]; !seen {
				bad[i] = fmt.Sprintf("%s: %s", p.Code, p.Message)
			}
		}
		if len(bad) == 0 {
			res.Content, res.Added = content, fresh
			return res, nil
		}
		var kept []execpolicy.Rule
		for i, r := range fresh {
			if reason, ok := bad[i]; ok {
				res.Dropped = append(res.Dropped, Dropped{Rule: r, Reason: reason})
			} else {
				kept = append(kept, r)
			}
		}
		fresh = kept
	}
	return res, nil
}

func contains(rules []execpolicy.Rule, r execpolicy.Rule) bool {
	for _, have := range rules {
		if execpolicy.SameRecord(have, r) {
			return true
		}
	}
	return false
}

// span is where one rule's table lies in the block.
type span struct{ start, end int }

func entryAt(spans []span, offset int) int {
	for i, s := range spans {
		if offset >= s.start && offset < s.end {
			return i
		}
	}
	return -1
}

// block is the text appended: the marked comment, the allows, then the
// denies with what they do not catch; spans[i] is rules[i]'s table.
func block(workspace string, rules []execpolicy.Rule) (string, []span) {
	var b strings.Builder
	spans := make([]span, len(rules))
	fmt.Fprintf(&b, "%s starter policy for %s.\n", Marker, oneLine(workspace))
	b.WriteString("# Allows hold in that repository only (workspace); denies hold in every\n")
	b.WriteString("# repository on this machine. Edit or delete them as any rule of yours.\n")
	section := ""
	for i, r := range rules {
		if s := sectionOf(r); s != section {
			section = s
			b.WriteString("\n" + s)
		} else {
			b.WriteString("\n")
		}
		start := b.Len()
		table := execpolicy.FormatRule(r)
		if r.Action == execpolicy.Deny && hasFlag(*r.Command) {
			// The comment of the section says what slips past.
			table = strings.Replace(table, "\ncommand = ", "\n# codewhale-ls: ignore CW204\ncommand = ", 1)
		}
		b.WriteString(table)
		spans[i] = span{start, b.Len()}
	}
	return b.String(), spans
}

// sectionOf is the comment above a group of rules.
func sectionOf(r execpolicy.Rule) string {
	if r.Action == execpolicy.Allow {
		return "# Build and test commands the repository shows: no approval needed there.\n"
	}
	return "# Never run by an agent, in any repository. A deny matches its flags as\n" +
		"# written and in order (CW204), so `git push origin -f` or `rm -fr /` is\n" +
		"# another command; no rule allows those either: they still need a person.\n"
}

func hasFlag(cmd string) bool {
	for _, w := range strings.Fields(cmd) {
		if strings.HasPrefix(w, "-") {
			return true
		}
	}
	return false
}

// oneLine keeps a comment on one line whatever the path holds.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}
