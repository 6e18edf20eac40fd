package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// savedPosture reads ~/.codewhale/settings.toml: permission_posture
// normalised to ask|auto-review|full-access, with the legacy
// default_mode = "yolo" migrated to full-access.
func savedPosture(f *File, doc *tomldoc.Doc) string {
	if doc == nil {
		return ""
	}
	if v, _, ok := doc.Root.String("permission_posture"); ok {
		switch tool.LowerASCII(strings.TrimSpace(v)) {
		case "ask", "suggest", "on-request", "untrusted":
			return "ask"
		case "auto", "auto-review", "auto_review":
			return "auto-review"
		case "full", "full-access", "full_access", "bypass":
			return "full-access"
		}
		e := doc.Root.Get("permission_posture")
		f.add("CW003", problem.Warning, e.Value.Span, fmt.Sprintf("Codewhale ignores permission_posture %q (expected ask, auto-review or full-access)", v))
	}
	if v, e, ok := doc.Root.String("default_mode"); ok && tool.LowerASCII(strings.TrimSpace(v)) == "yolo" {
		f.add("CW003", problem.Info, e.Value.Span, `legacy default_mode = "yolo" is migrated to permission_posture = "full-access"`)
		return "full-access"
	}
	return ""
}

// Requirements are the allowed values of /etc/deepseek/requirements.toml.
type Requirements struct {
	Present          bool
	ApprovalPolicies []string
	SandboxModes     []string
}

func readRequirements(f *File, doc *tomldoc.Doc) Requirements {
	r := Requirements{Present: f.State != Missing}
	if doc == nil {
		return r
	}
	r.ApprovalPolicies = stringList(f, doc.Root, "allowed_approval_policies")
	r.SandboxModes = stringList(f, doc.Root, "allowed_sandbox_modes")
	return r
}

func stringList(f *File, t *tomldoc.TableValue, key string) []string {
	e := t.Get(key)
	if e == nil {
		return nil
	}
	if e.Value.Kind != tomldoc.Array {
		f.add("CW003", problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: %s must be an array of strings", key))
		return nil
	}
	var out []string
	for _, it := range e.Value.Items {
		if it.Kind != tomldoc.String {
			f.add("CW003", problem.Error, it.Span, fmt.Sprintf("Codewhale refuses to start: %s must be an array of strings", key))
			continue
		}
		out = append(out, it.Str)
	}
	return out
}

// check returns why Codewhale refuses to start under these requirements.
func (r Requirements) check(approval, sandbox Setting) []string {
	var fatal []string
	allowed := func(list []string, v string) bool {
		return slices.ContainsFunc(list, func(a string) bool { return strings.EqualFold(a, v) })
	}
	if len(r.ApprovalPolicies) > 0 && approval.Set && !allowed(r.ApprovalPolicies, approval.Value) {
		fatal = append(fatal, fmt.Sprintf("approval_policy %q is not allowed by requirements (%s)", approval.Value, strings.Join(r.ApprovalPolicies, ", ")))
	}
	if len(r.SandboxModes) > 0 && sandbox.Set && !allowed(r.SandboxModes, sandbox.Value) {
		fatal = append(fatal, fmt.Sprintf("sandbox_mode %q is not allowed by requirements (%s)", sandbox.Value, strings.Join(r.SandboxModes, ", ")))
	}
	return fatal
}
