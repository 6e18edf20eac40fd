package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Policy is layer 1: the effective configuration and the posture it yields.
type Policy struct {
	ApprovalPolicy Setting
	SandboxMode    Setting
	AllowShell     BoolSetting
	Yolo           bool
	SavedPosture   string
	Overlay        Overlay
	Posture        session.Posture
	PostureSource  string
	// Locked: Codewhale refuses posture cycling and --yolo.
	Locked bool
	// Fatal lists why Codewhale would refuse to start; any entry makes every
	// decision a deny.
	Fatal []string
	// AddedSettings are the keys of release.AddedConfigKeys (unset in a
	// release without it: 0.9.10), merged over the user config by the
	// managed config and the environment; a project overlay cannot set
	// them.
	AddedSettings
	// ReadDenyList is the sandbox's read deny-list (empty before 0.10.0).
	ReadDenyList ReadDenyList
	// FatalChanges are the release changes that made Codewhale refuse to
	// start where 0.9.10 would not: every decision names them.
	FatalChanges []release.Change
	// LockChanges are the release changes without which the posture would
	// not be locked: a decision whose request the lock refused names them.
	LockChanges []release.Change
}

func envFirst(env Env, names ...string) (string, string, bool) {
	for _, n := range names {
		if v := env.Getenv(n); v != "" {
			return v, n, true
		}
	}
	return "", "", false
}

func truthy(v string) bool {
	return v == "1" || strings.EqualFold(v, "true")
}

// applyEnv is docs/codewhale/pipeline.md §1.1 step 3.
func applyEnv(c *UserConfig, env Env, r release.Release) (approvalFromEnv bool) {
	if v, n, ok := envFirst(env, "CODEWHALE_APPROVAL_POLICY", "DEEPSEEK_APPROVAL_POLICY"); ok {
		c.ApprovalPolicy = Setting{Value: v, Set: true, Source: n}
		approvalFromEnv = true
	}
	if v, n, ok := envFirst(env, "CODEWHALE_SANDBOX_MODE", "DEEPSEEK_SANDBOX_MODE"); ok {
		c.SandboxMode = Setting{Value: v, Set: true, Source: n}
	}
	if v, n, ok := envFirst(env, "CODEWHALE_ALLOW_SHELL", "DEEPSEEK_ALLOW_SHELL"); ok {
		c.AllowShell = BoolSetting{Value: truthy(v), Set: true, Source: n}
	}
	if v, n, ok := envFirst(env, "CODEWHALE_YOLO", "DEEPSEEK_YOLO"); ok {
		c.Yolo = BoolSetting{Value: truthy(v), Set: true, Source: n}
	}
	if r.Has(release.AddedConfigKeys) {
		c.AddedSettings.applyEnv(env)
	}
	return approvalFromEnv
}

// mergeManaged is the managed config's key-replace merge over the user
// config; it may set anything, including loosening.
func mergeManaged(c *UserConfig, m UserConfig) {
	if m.ApprovalPolicy.Set {
		c.ApprovalPolicy = m.ApprovalPolicy
	}
	if m.SandboxMode.Set {
		c.SandboxMode = m.SandboxMode
	}
	if m.AllowShell.Set {
		c.AllowShell = m.AllowShell
	}
	if m.Yolo.Set {
		c.Yolo = m.Yolo
	}
	if m.Hooks != nil {
		c.Hooks = m.Hooks
	}
	if m.AutoReview != nil {
		c.AutoReview = m.AutoReview
	}
	c.AddedSettings.mergeManaged(m.AddedSettings)
}

// workspaceShell is §1.1 step 7: [workspace."<abs>"] or [projects."<abs>"]
// allow_shell in the user config.
func workspaceShell(c UserConfig, workspace, home string) (bool, bool) {
	for _, t := range []*tomldoc.TableValue{c.WorkspaceEntries, c.Projects} {
		if entry := projectEntry(t, workspace, home); entry != nil {
			if v, _, ok := entry.BoolAt("allow_shell"); ok {
				return v, true
			}
		}
	}
	return false, false
}

// resolvePosture is §1.2.
func resolvePosture(p *Policy, source string) {
	p.PostureSource = source
	p.Locked = source != "unset"
	switch {
	case p.ApprovalPolicy.Set:
		if posture, ok := session.ParsePosture(p.ApprovalPolicy.Value); ok {
			p.Posture = posture
			break
		}
		p.Posture = session.Ask
	case !p.Locked && p.SavedPosture != "":
		p.Posture, _ = session.ParsePosture(p.SavedPosture)
		p.PostureSource = "settings.toml permission_posture"
	default:
		p.Posture = session.Ask
	}
	if p.Yolo && !p.Locked {
		p.Posture = session.FullAccess
	}
}

// approvalSource names who controls the approval policy, in Codewhale's
// priority order.
func approvalSource(req Requirements, reqUnreadable bool, ov Overlay, managed UserConfig, managedUnreadable, fromEnv bool, user UserConfig, rel release.Release) string {
	switch {
	case reqUnreadable || (req.Present && req.locksPosture(rel)):
		return "requirements"
	case ov.ApprovalPolicy.Set:
		return "project config " + filepath.Base(filepath.Dir(ov.Path)) + "/config.toml"
	case managedUnreadable:
		return "managed config (unreadable)"
	case managed.ApprovalPolicy.Set:
		return "managed config"
	case fromEnv:
		return "environment"
	case user.ApprovalPolicy.Set:
		return "config.toml"
	}
	return "unset"
}

// Describe is one line for the posture trace entry.
func (p Policy) Describe() string {
	if p.ApprovalPolicy.Set {
		return fmt.Sprintf("approval_policy = %q from %s", p.ApprovalPolicy.Value, p.ApprovalPolicy.Source)
	}
	if p.PostureSource != "unset" {
		return "posture from " + p.PostureSource
	}
	return "approval_policy unset: default posture Ask"
}
