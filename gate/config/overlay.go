package config

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Overlay is what <workspace>/.codewhale/config.toml contributes once its
// tighten-only rules have run (docs/codewhale/pipeline.md §1.3).
type Overlay struct {
	Path string
	// Disabled says why none of the overlay applies ("" when it does).
	Disabled       string
	ApprovalPolicy Setting // set only when the tightening test passed
	SandboxMode    Setting
	ShellOff       bool
}

var neverAppliedInProject = []string{"api_key", "base_url", "provider", "mcp_config_path", "mcp_oauth_callback_port", "mcp_oauth_callback_url", "instructions"}

var projectKeys = []string{"model", "reasoning_effort", "notes_path", "approval_policy", "sandbox_mode", "max_subagents", "allow_shell"}

// projectKeysIn is the keys a project config applies under release r:
// 0.10.1 ignores notes_path (docs/codewhale/releases/0.10.0.md Part D.9).
func projectKeysIn(r release.Release) []string {
	if r.Has(release.RemovedConfigKeys) {
		return slices.DeleteFunc(slices.Clone(projectKeys), func(k string) bool { return k == "notes_path" })
	}
	return projectKeys
}

// userOnlyIn reports a key a project config never applies because only
// the user's config may set it: the credentials and endpoints of every
// release, the 0.10.0 keys (B.1: "a project overlay cannot set them")
// and, from 0.10.1, notes_path.
func userOnlyIn(r release.Release, key string) bool {
	switch {
	case slices.Contains(neverAppliedInProject, key):
		return true
	case r.Has(release.AddedConfigKeys) && slices.Contains(addedTopLevel, key):
		return true
	case r.Has(release.RemovedConfigKeys) && key == "notes_path":
		return true
	}
	return false
}

func approvalRank(v string) (int, bool) {
	switch ascii.Lower(strings.TrimSpace(v)) {
	case "auto":
		return 0, true
	case "suggest", "suggested", "on-request", "untrusted":
		return 1, true
	case "never", "deny", "denied":
		return 2, true
	}
	return 0, false
}

func sandboxRank(v string) (int, bool) {
	switch ascii.Lower(strings.TrimSpace(v)) {
	case "danger-full-access", "external-sandbox":
		return 0, true
	case "workspace-write":
		return 1, true
	case "read-only":
		return 2, true
	}
	return 0, false
}

// tightens is Codewhale's rank test: with a ranked baseline the value must
// rank at least as high; without one only the strictest value applies.
func tightens(rank func(string) (int, bool), value, baseline string, baselineSet bool) bool {
	rv, ok := rank(value)
	if !ok {
		return false
	}
	if baselineSet {
		if rb, ok := rank(baseline); ok {
			return rv >= rb
		}
	}
	return rv >= 2
}

// approvalBaseline is the user's approval policy, or the saved TUI posture
// mapped to a policy when the config leaves it unset.
func approvalBaseline(current Setting, saved string) (string, bool) {
	if current.Set {
		return current.Value, true
	}
	switch saved {
	case "ask":
		return "on-request", true
	case "auto-review", "full-access":
		return "auto", true
	}
	return "", false
}

func sandboxTightens(value string, current Setting) bool {
	if ascii.Lower(strings.TrimSpace(value)) == "external-sandbox" {
		return current.Set && ascii.Lower(strings.TrimSpace(current.Value)) == "external-sandbox"
	}
	return tightens(sandboxRank, value, current.Value, current.Set)
}

// loadOverlay reads the project overlay. Codewhale skips it for a workspace
// that is the home directory, refuses a symlinked primary file without
// falling back, treats a non-regular file as absent, and silently ignores a
// file that does not parse.
func loadOverlay(b Buffers, p Paths, approval, sandbox Setting, savedPosture string, r release.Release) (*File, Overlay) {
	ov := Overlay{Path: p.Overlay}
	if p.Overlay == "" {
		return nil, ov
	}
	if canonical(p.Workspace, p.Home) == canonical(p.Home, p.Home) {
		ov.Disabled = "the workspace is the home directory"
		return nil, ov
	}
	path := p.Overlay
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&os.ModeSymlink != 0:
		f := &File{Kind: KindOverlay, Path: path, State: Invalid}
		ov.Disabled = "it is a symlink"
		f.add(problem.OverlayDisabled, problem.Error, problem.Span{}, "Codewhale skips this project config entirely because it is a symlink (no fallback to .deepseek/config.toml): none of its restrictions are in effect")
		return f, ov
	case err != nil || !fi.Mode().IsRegular():
		if _, lerr := os.Stat(p.LegacyOverlay); lerr == nil {
			path = p.LegacyOverlay
		} else if err == nil {
			// A non-regular primary is treated as absent, not as a file
			// that does not parse.
			return nil, ov
		}
	}
	ov.Path = path
	f := parseTOML(b, KindOverlay, path)
	doc := f.Doc
	if f.State == Invalid {
		ov.Disabled = "it does not parse"
		for i := range f.Problems {
			f.Problems[i].Message += " — Codewhale silently ignores the whole project config, so none of its restrictions are in effect"
		}
		f.add(problem.OverlayDisabled, problem.Error, problem.Span{}, "project config is disabled: it does not parse, so none of its restrictions are in effect")
		return f, ov
	}
	if doc == nil {
		return f, ov
	}
	for _, e := range doc.Root.Entries {
		overlayKey(f, &ov, e, approval, sandbox, savedPosture, r)
	}
	return f, ov
}

func overlayKey(f *File, ov *Overlay, e *tomldoc.Entry, approval, sandbox Setting, savedPosture string, r release.Release) {
	v := e.Value
	if userOnlyIn(r, e.Key) {
		f.add(problem.ProjectKeyNeverApplied, problem.Warning, e.KeySpan, fmt.Sprintf("project-scope config key %q is ignored — set it in ~/.codewhale/config.toml", e.Key))
		return
	}
	switch e.Key {
	case "approval_policy":
		if !overlayValueApplies(f, e) {
			return
		}
		base, baseSet := approvalBaseline(approval, savedPosture)
		if !tightens(approvalRank, v.Str, base, baseSet) {
			f.add(problem.OverlayDoesNotTighten, problem.Warning, v.Span, fmt.Sprintf("has no effect: project config can only tighten the user's approval policy (user: %s, project: %q)", describe(base, baseSet), v.Str))
			return
		}
		ov.ApprovalPolicy = Setting{Value: v.Str, Set: true, Source: "project config", File: f.Path, Span: v.Span}
	case "sandbox_mode":
		if !overlayValueApplies(f, e) {
			return
		}
		if !sandboxTightens(v.Str, sandbox) {
			f.add(problem.OverlayDoesNotTighten, problem.Warning, v.Span, fmt.Sprintf("has no effect: project config can only tighten the user's sandbox mode (user: %s, project: %q)", describe(sandbox.Value, sandbox.Set), v.Str))
			return
		}
		ov.SandboxMode = Setting{Value: v.Str, Set: true, Source: "project config", File: f.Path, Span: v.Span}
	case "allow_shell":
		if !overlayValueApplies(f, e) {
			return
		}
		if v.Bool {
			f.add(problem.OverlayDoesNotTighten, problem.Warning, v.Span, "has no effect: project config allow_shell = true is ignored (a project can only turn the shell off)")
			return
		}
		ov.ShellOff = true
	case "model", "reasoning_effort", "notes_path", "max_subagents":
		overlayValueApplies(f, e)
	default:
		msg := fmt.Sprintf("Codewhale silently ignores %q in a project config (only %s apply)", e.Key, strings.Join(projectKeysIn(r), ", "))
		if !slices.Contains(knownTopLevelIn(r), e.Key) {
			// Not a user-config key put in the wrong file but a key no
			// config has: likely a typo of a project key, which CW002
			// would have named in the user's config (issue 24, point 5).
			msg += problem.DidYouMean(e.Key, projectKeysIn(r))
		}
		f.add(problem.ProjectKeyIgnored, problem.Warning, e.KeySpan, msg)
	}
}

// overlayValueApplies reports whether Codewhale reads the value of an
// overlay key (docs/codewhale/pipeline.md §1.3: a non-empty string, a bool
// for allow_shell, an integer above 0 for max_subagents), and reports CW100
// where it does not: Codewhale drops such a value without a word, so a
// restriction written that way is not in effect.
func overlayValueApplies(f *File, e *tomldoc.Entry) bool {
	v := e.Value
	var want string
	switch e.Key {
	case "allow_shell":
		if v.Kind == tomldoc.Bool {
			return true
		}
		want = "a boolean (allow_shell = false turns the shell off)"
	case "max_subagents":
		if v.Kind == tomldoc.Integer && v.Int > 0 {
			return true
		}
		want = "an integer above 0"
	default:
		if v.Kind == tomldoc.String && v.Str != "" {
			return true
		}
		want = "a non-empty string"
	}
	f.add(problem.OverlayDoesNotTighten, problem.Warning, v.Span, fmt.Sprintf("has no effect: Codewhale silently ignores a project %s that is not %s", e.Key, want))
	return false
}

func describe(v string, set bool) string {
	if !set {
		return "unset"
	}
	return fmt.Sprintf("%q", v)
}
