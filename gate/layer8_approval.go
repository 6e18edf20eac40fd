package gate

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/autoreview"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/shellsafety"
)

// approval is layer 8: the disposition of a call that still needs a human.
// Without an approval card (the CLI, explain) an undecided call ends as ask.
func (p *plan) approval(sessions Sessions) (Decision, bool) {
	if !p.need {
		p.trace(LayerApproval, EffectNone, "no approval needed")
		return Decision{}, false
	}
	exact := ExactKey(p.semantic, p.input)
	grouping := GroupingKey(p.snap.Release, p.semantic, p.input)
	grants := sessionGrants(p.snap.Release, p.req.Tool, grouping)
	if len(p.hidden) > 0 {
		// The hardening layer: a session grant never covers a compound
		// command (a chain, a pipe into a shell, a command-running
		// wrapper) unless the user approved that exact text
		// (docs/hardening.md, "Session grants").
		grants = []string{exact}
	}
	disp := dispose(p.s.authority, sessions, p.req.Tool, exact, grants, p.force, p.desc)
	if len(p.hidden) == 0 {
		p.grantsChanged(sessions, exact, grants, disp)
	}
	p.d.ByPosture = disp.source == "posture"
	switch disp.verdict {
	case Allow:
		p.trace(LayerApproval, EffectAllow, disp.reason)
		p.allowLayer, p.allowRule = LayerApproval, nil
		if disp.source == "session-grant" {
			p.d.Approval = &Approval{Choice: "session", Source: disp.source}
		}
		return Decision{}, false
	case Deny:
		return p.deny(LayerApproval, disp.reason, p.descRule), true
	}
	prompt := p.prompt(exact, grouping, grants)
	p.d.Prompt = prompt
	forced := ""
	if p.force {
		forced = " (forced: session grants and saved rules cannot pass it)"
	}
	p.trace(LayerApproval, EffectAsk, "would open an approval card"+forced+": "+p.desc)
	p.traceSandbox()
	return p.finish(Ask, LayerApproval, p.desc, p.descRule), true
}

// grantsChanged records the release changes that make the disposition
// differ from the one the oldest release's resolvedSession grants give: the
// tool-name grant is gone (B.8.3), or the grouping key is narrower
// (B.8.3-patch, D.7).
func (p *plan) grantsChanged(sessions Sessions, exact string, grants []string, disp disposition) {
	if p.snap.Release.Name() == release.Oldest().Version {
		return
	}
	oldest := release.Release{}
	oldGrouping := GroupingKey(oldest, p.semantic, p.input)
	old := dispose(p.s.authority, sessions, p.req.Tool, exact, sessionGrants(oldest, p.req.Tool, oldGrouping), p.force, p.desc)
	if old.verdict == disp.verdict {
		return
	}
	if sessions.Approved(p.req.Tool) && !slices.Contains(grants, p.req.Tool) {
		p.changed(release.SessionGrantsByFamily)
	}
	if sessions.Approved(oldGrouping) && !slices.Contains(grants, oldGrouping) {
		switch {
		case p.semantic == "apply_patch":
			p.changed(release.PatchGrantsPerFile)
		default:
			p.changed(release.ShellGrantsNarrowed)
		}
	}
}

// prompt builds what the approval card would offer (docs/codewhale/pipeline.md §8.3).
func (p *plan) prompt(exact, grouping string, grants []string) *Prompt {
	pr := &Prompt{Description: p.desc, Forced: p.force, ExactKey: exact, GroupingKey: grouping,
		SessionGrants: grants, Choices: append(make([]Choice, 0, 4), ChoiceOnce, ChoiceSession)} // room for always and deny
	switch rules := p.alwaysRules(); {
	case len(rules) == 0:
	case p.snap.PermissionsSaveRefused != "":
		pr.AlwaysRefused = p.snap.PermissionsSaveRefused
	default:
		pr.Choices = append(pr.Choices, ChoiceAlways)
		pr.Always = rules
	}
	pr.Choices = append(pr.Choices, ChoiceDeny)
	return pr
}

// alwaysRules are the rules "Always allow in this repo" would append, or
// none where Codewhale does not offer it: repo-law cards, critical stakes
// (destructive risk with a publish or destructive kind), a shell command the
// command-safety analyzer does not rate Safe or WorkspaceSafe, or a call with
// no valid candidate.
func (p *plan) alwaysRules() []execpolicy.Rule {
	if isRepoLawDescription(p.desc) {
		return nil
	}
	c := p.class // layer 6, which always runs first, classified this call
	if c.Risk == autoreview.Destructive && (c.ActionKind == autoreview.Publish || c.ActionKind == autoreview.DestructiveKind) {
		return nil
	}
	if p.semantic == "exec_shell" {
		if p.call.Shell == nil {
			return nil
		}
		if level := p.call.Shell.Analyze(); level != shellsafety.Safe && level != shellsafety.WorkspaceSafe {
			return nil
		}
	}
	rules, err := execpolicy.AllowCandidates(p.semantic, p.input, p.req.Workspace, p.patchTargets)
	if err != nil {
		return nil
	}
	return rules
}

// isRepoLawDescription recognises repo-law cards, which may never save an
// allow rule.
func isRepoLawDescription(desc string) bool {
	return strings.HasPrefix(desc, "Repo law holds this write:") && strings.Contains(desc, ".codewhale/constitution.json")
}
