package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// savedPosture reads ~/.codewhale/settings.toml: permission_posture
// normalised to ask|auto-review|full-access, with the legacy
// default_mode = "yolo" migrated to full-access.
func savedPosture(f *File, doc *tomldoc.Doc) string {
	if doc == nil {
		return ""
	}
	if v, _, ok := doc.Root.String("permission_posture"); ok {
		switch ascii.Lower(strings.TrimSpace(v)) {
		case "ask", "suggest", "on-request", "untrusted":
			return "ask"
		case "auto", "auto-review", "auto_review":
			return "auto-review"
		case "full", "full-access", "full_access", "bypass":
			return "full-access"
		}
		e := doc.Root.Get("permission_posture")
		f.add(problem.InvalidValue, problem.Warning, e.Value.Span, fmt.Sprintf("Codewhale ignores permission_posture %q (expected ask, auto-review or full-access)", v))
	}
	if v, e, ok := doc.Root.String("default_mode"); ok && ascii.Lower(strings.TrimSpace(v)) == "yolo" {
		f.add(problem.InvalidValue, problem.Info, e.Value.Span, `legacy default_mode = "yolo" is migrated to permission_posture = "full-access"`)
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
		f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: %s must be an array of strings", key))
		return nil
	}
	var out []string
	for _, it := range e.Value.Items {
		if it.Kind != tomldoc.String {
			f.add(problem.InvalidValue, problem.Error, it.Span, fmt.Sprintf("Codewhale refuses to start: %s must be an array of strings", key))
			continue
		}
		out = append(out, it.Str)
	}
	return out
}

// The values an unset key is checked as from 0.10.1: the Ask posture's
// policy and the sandbox Agent mode gets under Ask.
const (
	defaultApprovalPolicy = "on-request"
	defaultSandboxMode    = "workspace-write"
)

// check returns why Codewhale refuses to start under these requirements,
// and whether a release change made it refuse where 0.9.10 would not.
// From 0.10.1 (docs/codewhale/releases/0.10.0.md Part D.9) an unset key is
// checked as its default, and an approval policy is allowed when an entry
// names the same posture (`suggest` where `on-request` is listed).
func (r Requirements) check(approval, sandbox Setting, rel release.Release) (fatal []string, changed bool) {
	stricter := rel.Has(release.StricterRequirements)
	exact := func(list []string, v string) bool {
		return slices.ContainsFunc(list, func(a string) bool { return strings.EqualFold(a, v) })
	}
	samePosture := func(list []string, v string) bool {
		want, ok := session.ParsePosture(v)
		return ok && slices.ContainsFunc(list, func(a string) bool { p, ok := session.ParsePosture(a); return ok && p == want })
	}
	for _, k := range []struct {
		name, def string
		value     Setting
		list      []string
		aliases   bool
	}{
		{"approval_policy", defaultApprovalPolicy, approval, r.ApprovalPolicies, true},
		{"sandbox_mode", defaultSandboxMode, sandbox, r.SandboxModes, false},
	} {
		if len(k.list) == 0 || (!k.value.Set && !stricter) {
			continue
		}
		v, what := k.value.Value, fmt.Sprintf("%s %q", k.name, k.value.Value)
		if !k.value.Set {
			v, what = k.def, fmt.Sprintf("%s (unset, so its default %q)", k.name, k.def)
		}
		if exact(k.list, v) || (stricter && k.aliases && samePosture(k.list, v)) {
			continue
		}
		fatal = append(fatal, fmt.Sprintf("%s is not allowed by requirements (%s)", what, strings.Join(k.list, ", ")))
		changed = changed || !k.value.Set
	}
	return fatal, changed
}

// locksPosture reports whether the requirements control the posture: a
// non-empty approval list always; from 0.10.1 a sandbox list too (D.9).
func (r Requirements) locksPosture(rel release.Release) bool {
	return len(r.ApprovalPolicies) > 0 || (rel.Has(release.StricterRequirements) && len(r.SandboxModes) > 0)
}
