package diagnostics

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// lintConfig adds what decides whether Codewhale starts: a rejected
// permissions.toml as a whole (CW005), approval_policy and sandbox_mode
// values (CW600, CW602), and the user config's settings that do less than
// they read: auto-review tool names (CW604), auto-review allow rules under
// a posture locked elsewhere and relative workspace keys (CW602).
func lintConfig(snap *config.Snapshot, out map[string]*FileResult) {
	if f := out[snap.Paths.Permissions]; f != nil && f.State == config.Invalid {
		rejectedPermissions(f)
	}
	if f := out[snap.Paths.Config]; f != nil && f.Doc != nil {
		startupValues(f, f.Doc.Root)
		autoReviewTools(f, f.Doc.Root)
		inertAutoReviewAllow(f, f.Doc.Root, snap.Policy)
		relativeWorkspaceKeys(f, f.Doc.Root)
	}
}

func rejectedPermissions(f *FileResult) {
	var causes []problem.Related
	for _, p := range f.Problems {
		if p.Severity != problem.Error {
			continue
		}
		causes = append(causes, problem.Related{File: f.Path, Span: p.Span, Message: p.Message})
	}
	if len(causes) == 0 {
		return
	}
	f.Problems = append(f.Problems, problem.Problem{
		Code: problem.FileRejected, Severity: problem.Error, Related: causes, // placed by placeWholeFile
		Message: fmt.Sprintf("Codewhale refuses to start: it rejects this whole permissions.toml because of %s, so none of its rules apply and every call is denied until it is fixed", causeLines(f.Src, causes)),
	})
}

func startupValues(f *FileResult, root *tomldoc.TableValue) {
	for _, key := range []string{"approval_policy", "approvalPolicy"} {
		if v, e, ok := root.String(key); ok {
			norm := ascii.Lower(strings.TrimSpace(v))
			if !slices.Contains(config.ValidApprovalPolicies, norm) {
				f.Problems = append(f.Problems, notOneOf("approval_policy", v, norm, e, config.ValidApprovalPolicies, postureHint(norm)))
			}
		}
	}
	for _, key := range []string{"sandbox_mode", "sandboxMode"} {
		v, e, ok := root.String(key)
		if !ok {
			continue
		}
		norm := ascii.Lower(strings.TrimSpace(v))
		switch {
		case !slices.Contains(config.ValidSandboxModes, norm):
			f.Problems = append(f.Problems, notOneOf("sandbox_mode", v, norm, e, config.ValidSandboxModes, ""))
		case v != norm:
			fix := []problem.Fix{{Title: fmt.Sprintf("Change to %q", norm), Safe: true, Edits: []problem.Edit{{Span: e.Value.Span, NewText: fmt.Sprintf("%q", norm)}}}}
			f.Problems = append(f.Problems, problem.Problem{Code: problem.ValueDoesNotRestrict, Severity: problem.Warning, Span: e.Value.Span, Fixes: fix,
				Message: fmt.Sprintf("sandbox_mode %q passes validation but does not restrict: Codewhale applies the sandbox with an exact, case-sensitive comparison, so it runs as if sandbox_mode were unset; write %q", v, norm)})
		}
	}
}

// notOneOf is CW600 for a value Codewhale refuses to start with, with a
// fix to the nearest valid one when there is one.
func notOneOf(name, v, norm string, e *tomldoc.Entry, valid []string, hint string) problem.Problem {
	p := problem.Problem{Code: problem.RefusesToStart, Severity: problem.Error, Span: e.Value.Span,
		Message: fmt.Sprintf("Codewhale refuses to start: %s %q is not one of %s", name, v, strings.Join(valid, ", ")) + hint}
	if s := problem.Nearest(norm, valid); s != "" {
		p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Change to %q", s), Edits: []problem.Edit{{Span: e.Value.Span, NewText: fmt.Sprintf("%q", s)}},
			WhyNotSafe: fmt.Sprintf("%q is a guess at the value you meant", s)}}
	}
	return p
}

func postureHint(v string) string {
	switch v {
	case "full-access", "bypass", "yolo", "auto-review", "ask", "deny":
		return fmt.Sprintf(" (%q is a posture or overlay spelling, not a config.toml value)", v)
	}
	return ""
}

// retiredToolNames are semantic names agents no longer call: auto-review
// rules compare the raw name of the call.
var retiredToolNames = map[string]string{"exec_shell": "bash", "write_file": "write", "read_file": "read", "edit_file": "edit", "apply_patch": "File"}

func autoReviewTools(f *FileResult, root *tomldoc.TableValue) {
	ar, _ := root.Sub("auto_review")
	for _, list := range []string{"allow", "block"} {
		e := ar.Get(list)
		if e == nil || e.Value.Kind != tomldoc.Array {
			continue
		}
		for _, item := range e.Value.Items {
			if item.Kind != tomldoc.Table {
				continue
			}
			for _, key := range []string{"tool", "tool_name", "toolName"} {
				v, te, ok := item.Table.String(key)
				if !ok {
					continue
				}
				if live, retired := retiredToolNames[v]; retired {
					f.Problems = append(f.Problems, rawNameProblem(te, live,
						fmt.Sprintf("auto-review compares the call's raw tool name, and agents call %q, not %q: this rule never matches a live call", live, v)))
				}
				if strings.ContainsAny(v, "*?[") {
					// No replacement can be offered: the rule reads as a
					// pattern, and auto-review has none.
					f.Problems = append(f.Problems, problem.Problem{Code: problem.AutoReviewToolNeverMatches, Severity: problem.Warning, Span: te.Value.Span,
						Message: fmt.Sprintf("auto-review compares the call's raw tool name exactly, without wildcards: %q matches only a call named exactly that, which no agent makes; write one rule per tool name", v)})
					continue
				}
				if live, ok := tool.LiveMCPName(v); ok {
					f.Problems = append(f.Problems, rawNameProblem(te, live,
						fmt.Sprintf("auto-review compares the call's raw tool name, and Codewhale calls MCP tools mcp_<server>_<tool> with single underscores: %q never matches a live call (%q would)", v, live)))
				}
			}
		}
	}
}

// rawNameProblem is CW604 for a rule tool that no call is named, with a fix
// to the name the call has.
func rawNameProblem(e *tomldoc.Entry, live, message string) problem.Problem {
	return problem.Problem{Code: problem.AutoReviewToolNeverMatches, Severity: problem.Warning, Span: e.Value.Span, Message: message,
		Fixes: []problem.Fix{{Title: fmt.Sprintf("Change to %q", live), Edits: []problem.Edit{{Span: e.Value.Span, NewText: fmt.Sprintf("%q", live)}},
			WhyNotSafe: "the rule then starts to match live calls, which it never did"}}}
}

// inertAutoReviewAllow is CW602 for [auto_review.allow] rules when the
// posture is locked to one other than Auto-Review: an allow rule lifts a
// call only in Auto-Review (docs/codewhale/pipeline.md §6.5), and a locked posture cannot
// be switched there. An unlocked posture can, so nothing is reported then.
func inertAutoReviewAllow(f *FileResult, root *tomldoc.TableValue, p config.Policy) {
	if !p.Locked || p.Posture == session.AutoReview {
		return
	}
	ar, _ := root.Sub("auto_review")
	e := ar.Get("allow")
	if e == nil || e.Value.Kind != tomldoc.Array {
		return
	}
	for _, item := range e.Value.Items {
		if item.Kind != tomldoc.Table {
			continue
		}
		f.Problems = append(f.Problems, problem.Problem{Code: problem.ValueDoesNotRestrict, Severity: problem.Warning, Span: item.Span,
			Message: fmt.Sprintf("this [auto_review.allow] rule never applies: allow rules lift a call only in the Auto-Review posture, and the posture is locked to %s (%s)", p.Posture.Label(), p.Describe())})
	}
}

// relativeWorkspaceKeys is CW602 for a [workspace."…"] or [projects."…"]
// key that is a relative path: Codewhale canonicalises the key against the
// directory it is started in (docs/codewhale/pipeline.md §1.1 step 7), so the entry names
// no fixed directory. Keys starting with ~ or $ expand to absolute paths.
func relativeWorkspaceKeys(f *FileResult, root *tomldoc.TableValue) {
	for _, name := range []string{"workspace", "projects"} {
		t, _ := root.Sub(name)
		if t == nil {
			continue
		}
		for _, e := range t.Entries {
			if e.Value.Kind != tomldoc.Table || filepath.IsAbs(e.Key) || strings.HasPrefix(e.Key, "~") || strings.HasPrefix(e.Key, "$") {
				continue
			}
			f.Problems = append(f.Problems, problem.Problem{Code: problem.ValueDoesNotRestrict, Severity: problem.Warning, Span: e.KeySpan,
				Message: fmt.Sprintf("[%s.%q] is a relative path: Codewhale resolves it against the directory it is started in, so this entry applies to whichever directory that is (every one, for \".\"), not to a fixed workspace; write the absolute path", name, e.Key)})
		}
	}
}
