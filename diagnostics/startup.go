package diagnostics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// lintConfig adds what decides whether Codewhale starts: a rejected
// permissions.toml as a whole (CW005), approval_policy and sandbox_mode
// values (CW600, CW602), and auto-review tool names (CW604).
func lintConfig(snap *config.Snapshot, out map[string]*FileResult) {
	if f := out[snap.Paths.Permissions]; f != nil && f.State == config.Invalid {
		rejectedPermissions(f)
	}
	if f := out[snap.Paths.Config]; f != nil && f.Doc != nil {
		startupValues(f, f.Doc.Root)
		autoReviewTools(f, f.Doc.Root)
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
		Code: codeWholeFile, Severity: problem.Error, Related: causes, // placed by placeWholeFile
		Message: fmt.Sprintf("Codewhale refuses to start: it rejects this whole permissions.toml because of %s, so none of its rules apply and every call is denied until it is fixed", causeLines(f.Src, causes)),
	})
}

func startupValues(f *FileResult, root *tomldoc.TableValue) {
	for _, key := range []string{"approval_policy", "approvalPolicy"} {
		if v, e, ok := root.String(key); ok {
			norm := tool.LowerASCII(strings.TrimSpace(v))
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
		norm := tool.LowerASCII(strings.TrimSpace(v))
		switch {
		case !slices.Contains(config.ValidSandboxModes, norm):
			f.Problems = append(f.Problems, notOneOf("sandbox_mode", v, norm, e, config.ValidSandboxModes, ""))
		case v != norm:
			fix := []problem.Fix{{Title: fmt.Sprintf("Change to %q", norm), Safe: true, Edits: []problem.Edit{{Span: e.Value.Span, NewText: fmt.Sprintf("%q", norm)}}}}
			f.Problems = append(f.Problems, problem.Problem{Code: "CW602", Severity: problem.Warning, Span: e.Value.Span, Fixes: fix,
				Message: fmt.Sprintf("sandbox_mode %q passes validation but does not restrict: Codewhale applies the sandbox with an exact, case-sensitive comparison, so it runs as if sandbox_mode were unset; write %q", v, norm)})
		}
	}
}

// notOneOf is CW600 for a value Codewhale refuses to start with, with a
// fix to the nearest valid one when there is one.
func notOneOf(name, v, norm string, e *tomldoc.Entry, valid []string, hint string) problem.Problem {
	p := problem.Problem{Code: "CW600", Severity: problem.Error, Span: e.Value.Span,
		Message: fmt.Sprintf("Codewhale refuses to start: %s %q is not one of %s", name, v, strings.Join(valid, ", ")) + hint}
	if s := problem.Nearest(norm, valid); s != "" {
		p.Fixes = []problem.Fix{{Title: fmt.Sprintf("Change to %q", s), Edits: []problem.Edit{{Span: e.Value.Span, NewText: fmt.Sprintf("%q", s)}}}}
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
					f.Problems = append(f.Problems, problem.Problem{Code: "CW604", Severity: problem.Warning, Span: te.Value.Span,
						Message: fmt.Sprintf("auto-review compares the call's raw tool name, and agents call %q, not %q: this rule never matches a live call", live, v),
						Fixes:   []problem.Fix{{Title: fmt.Sprintf("Change to %q", live), Edits: []problem.Edit{{Span: te.Value.Span, NewText: fmt.Sprintf("%q", live)}}}}})
				}
			}
		}
	}
}
