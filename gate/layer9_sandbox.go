package gate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

func boolPtr(b bool) *bool { return &b }

func readOnly() Sandbox { return Sandbox{Type: "read-only"} }

func workspaceWrite(ws string, network bool) Sandbox {
	return Sandbox{Type: "workspace-write", WritableRoots: []string{ws}, NetworkAccess: boolPtr(network)}
}

// sandboxPolicy is docs/codewhale/pipeline.md §9.1: a default by posture and mode, which
// the configured sandbox_mode may only tighten. Codewhale compares the
// configured value exactly and case-sensitively here, so `Read-Only` passes
// validation and then does not clamp. network is whether workspace-write
// and external sandboxes reach the network (sandboxNetwork).
func sandboxPolicy(a authority, configured string, ws string, network bool) Sandbox {
	var def Sandbox
	switch {
	case a.mode == session.Plan:
		def = readOnly()
	case a.mode == session.Yolo || a.posture == session.FullAccess || a.autoApprove:
		def = Sandbox{Type: "danger-full-access"}
	default:
		def = workspaceWrite(ws, network)
	}
	switch {
	case def.Type == "read-only" || configured == "read-only":
		return readOnly()
	case def.Type == "danger-full-access" && configured == "workspace-write":
		return workspaceWrite(ws, network)
	case def.Type == "danger-full-access" && configured == "external-sandbox":
		return Sandbox{Type: "external-sandbox", NetworkAccess: boolPtr(network)}
	}
	return def
}

// sandboxNetwork is whether workspace-write and external sandboxes have
// the network: always before 0.10.0, only with sandbox_network_access
// since (docs/codewhale/releases/0.10.0.md B.9.1).
func sandboxNetwork(snap *config.Snapshot) bool {
	return !snap.Release.Has(release.SandboxNetworkOff) || snap.Policy.SandboxNetworkAccess.Value
}

// networkChanged reports a sandbox that 0.9.10 would have given the
// network and this release does not.
func networkChanged(s Sandbox) bool {
	return (s.Type == "workspace-write" || s.Type == "external-sandbox") && s.NetworkAccess != nil && !*s.NetworkAccess
}

// readToolPaths are the paths an in-process read reads or enumerates, by
// the call's canonical name (docs/codewhale/releases/0.10.0.md B.9.2);
// by is the change that put the tool under the deny-list. pandoc_convert
// and image_ocr (0.10.1) name their file in fields the spec does not
// give, so every field that may hold it is checked (choices.md, B.9.2).
func readToolPaths(name, semantic string, input map[string]any, r release.Release) (paths []string, by release.Change) {
	var fields []string
	switch {
	case semantic == "read_file" || semantic == "file_search" || name == "read_media":
		fields, by = []string{"path"}, release.ReadDenyList
	case semantic == "list_dir":
		fields, by = []string{"path"}, release.ReadDenyList
		paths = []string{"."}
	case (name == "pandoc_convert" || name == "image_ocr") && r.Has(release.ReadDenyListMoreTools):
		fields, by = []string{"path", "input", "input_path", "file", "image", "image_path", "source"}, release.ReadDenyListMoreTools
	default:
		return nil, by
	}
	var named []string
	for _, f := range fields {
		if v, _ := input[f].(string); strings.TrimSpace(v) != "" {
			named = append(named, strings.TrimSpace(v))
		}
	}
	if len(named) > 0 {
		return named, by
	}
	return paths, by
}

// sandboxBeforeApproval is the part of layer 9 that Codewhale plans before
// layer 8 asks anyone (docs/codewhale/pipeline.md §8.1, §9.2): the read
// deny-list refuses a read before anyone could be asked (B.9.2), and a
// model-requested sandbox escalation, planned last, is refused or becomes
// a forced approval for this exact call.
func (p *plan) sandboxBeforeApproval() (Decision, bool) {
	if d, done := p.readDenied(); done {
		return d, true
	}
	if d, done := p.unsandboxedReadDenied(); done {
		return d, true
	}
	return p.requestEscalation()
}

// requestEscalation plans the call's sandbox escalation request (§9.2).
func (p *plan) requestEscalation() (Decision, bool) {
	esc, escalates := sandboxEscalation(p.req.Tool, p.input, p.sandbox, p.s.authority, p.req.Workspace)
	if !escalates {
		return Decision{}, false
	}
	if esc.blocked != "" {
		return p.deny(LayerSandbox, esc.blocked, nil), true
	}
	desc := esc.prompt
	if p.force && p.desc != "" {
		desc += ". Additional approval gate: " + p.desc
	}
	p.requireApproval(desc, nil, true)
	p.escalated = esc.policy
	return Decision{}, false
}

// sandboxApproved is layer 9 once layer 8 let the call through: an
// escalation it asked for now holds.
func (p *plan) sandboxApproved() {
	if p.escalated != nil {
		p.sandbox = *p.escalated
	}
}

// traceSandbox is layer 9's line of the trace: the sandbox the call runs
// under, or would once its approval card is answered.
func (p *plan) traceSandbox() {
	p.trace(LayerSandbox, EffectNone, describeSandbox(p.sandbox, p.snap.Policy.ReadDenyList))
}

// describeSandbox says what the OS sandbox s enforces, reads included.
func describeSandbox(s Sandbox, reads config.ReadDenyList) string {
	net := "off"
	if s.NetworkAccess != nil && *s.NetworkAccess {
		net = "on"
	}
	var clause, spelled string // the read deny-list's, when there is one
	switch {
	case len(reads.Rules) == 0:
	case s.Type == "danger-full-access":
		// No OS sandbox wraps the shell, so only in-process reads meet it.
		clause, spelled = "; read deny-list (file tools only: shells run unsandboxed): ", reads.Spelled()
	default:
		clause, spelled = "; read deny-list (file tools, and shells through the OS sandbox): ", reads.Spelled()
	}
	// Each line is one concatenation, and the roots are spelled as fmt's
	// %v spells a list, without its reflection: every held call's trace
	// has this line.
	switch s.Type {
	case "workspace-write":
		return "workspace-write [" + strings.Join(s.WritableRoots, " ") + "], network " + net + clause + spelled
	case "external-sandbox":
		return "external-sandbox, network " + net + clause + spelled
	}
	return s.Type + clause + spelled
}

// readDenied is the sandbox's read deny-list for in-process reads: a read
// of a denied path is refused in every posture, before any approval could
// be asked for it, with the path as the call spelled it. Shell reads are
// refused by the OS sandbox, which describeSandbox says.
func (p *plan) readDenied() (Decision, bool) {
	list := p.snap.Policy.ReadDenyList
	if len(list.Rules) == 0 {
		return Decision{}, false
	}
	paths, by := readToolPaths(p.req.Tool, p.semantic, p.input, p.snap.Release)
	for _, path := range paths {
		if rule, denied := list.Denies(path, p.snap.Paths.Home, p.req.Workspace); denied {
			p.changed(by)
			return p.deny(LayerSandbox, fmt.Sprintf("Read access to '%s' is denied: it is on the sandbox read deny-list (%s).", path, rule.Spelled), nil), true
		}
	}
	return Decision{}, false
}

// unsandboxedReadDenied refuses a call that will run outside Codewhale's
// OS sandbox (Request.OutsideSandbox) and could read a path on the read
// deny-list: in Codewhale that sandbox would refuse the read when a shell
// command runs (describeSandbox), so a call that runs without it gets the
// refusal here, before it runs. For a shell call, what the line could
// read is deniedShellRead's: its words as the shell would expand them, in
// its working directory (input "cwd" when absolute, else the workspace)
// and the ones it moves to, and the trees its recursive readers read.
// Another agent's search tools mapped to file_search and grep_files read
// outside the sandbox too: their directory is read recursively and
// file_search's pattern is a glob (deniedToolRead); Codewhale's own calls
// of them are left exactly as Codewhale decides them (readDenied; it does
// not cover grep_files: docs/architecture.md, "Where Codewhale fails
// open"). Under danger-full-access no sandbox wraps Codewhale's own shells
// either, so nothing is refused.
func (p *plan) unsandboxedReadDenied() (Decision, bool) {
	list := p.snap.Policy.ReadDenyList
	if !p.req.OutsideSandbox || len(list.Rules) == 0 || p.sandbox.Type == "danger-full-access" {
		return Decision{}, false
	}
	dir := p.req.Workspace
	if cwd, _ := p.input["cwd"].(string); filepath.IsAbs(cwd) {
		dir = cwd
	}
	var found shellRead
	var denied bool
	switch command, _ := p.input["command"].(string); {
	case tool.IsShell(p.req.Tool) && command != "":
		found, denied = deniedShellRead(list, command, dir, p.snap.Paths.Home)
	case p.semantic == "file_search" || p.semantic == "grep_files":
		found, denied = deniedToolRead(list, p.semantic, p.input, dir, p.snap.Paths.Home)
	}
	if !denied {
		return Decision{}, false
	}
	p.changed(release.ReadDenyList)
	return p.deny(LayerSandbox, found.reason(list), nil), true
}

// escalation is the model-requested sandbox escalation of §9.2, for shell
// calls carrying sandbox_permissions or justification.
type escalation struct {
	blocked string // invalid input or a refusal
	prompt  string // forced-card description when the posture can ask
	policy  *Sandbox
}

func sandboxEscalation(name string, input map[string]any, current Sandbox, a authority, ws string) (escalation, bool) {
	if !tool.IsShell(name) {
		return escalation{}, false
	}
	perm, hasPerm := input["sandbox_permissions"]
	just, hasJust := input["justification"]
	if !hasPerm && !hasJust {
		return escalation{}, false
	}
	if action, ok := input["action"]; ok && action != "run" {
		return escalation{blocked: "Invalid input: sandbox_permissions is only valid for Bash action=run."}, true
	}
	if !hasPerm {
		return escalation{blocked: "Invalid input: justification requires sandbox_permissions."}, true
	}
	mode, ok := perm.(string)
	if !ok {
		return escalation{blocked: "Invalid input: sandbox_permissions must be a string."}, true
	}
	reason, _ := just.(string)
	if !hasJust {
		return escalation{blocked: "Invalid input: sandbox_permissions requires a justification."}, true
	}
	if strings.TrimSpace(reason) == "" {
		return escalation{blocked: "Invalid input: justification expected a non-empty sentence."}, true
	}
	var target Sandbox
	switch mode {
	case "workspace-write":
		if current.Type != "read-only" {
			return notWider(mode, current), true
		}
		target = workspaceWrite(ws, false)
	case "danger-full-access":
		if current.Type != "read-only" && current.Type != "workspace-write" {
			return notWider(mode, current), true
		}
		target = Sandbox{Type: "danger-full-access"}
	case "read-only":
		return notWider(mode, current), true
	default:
		return escalation{blocked: fmt.Sprintf("Invalid input: unknown sandbox_permissions value %q.", mode)}, true
	}
	if a.posture != session.Ask || a.autoApprove {
		return escalation{blocked: fmt.Sprintf("Sandbox escalation requires a one-shot user approval, but the current %s posture cannot provide it.", a.posture.Label())}, true
	}
	return escalation{prompt: fmt.Sprintf("Sandbox escalation to '%s' for this exact call: %s", mode, reason), policy: &target}, true
}

// SandboxOf is the sandbox a call in workspace gets in the default mode
// (agent) and the posture the files resolve: what codewhale/status shows.
func SandboxOf(snap *config.Snapshot, workspace string) Sandbox {
	s := resolveSession(snap.Policy, snap.Release, Request{Mode: session.Agent, Workspace: workspace})
	return sandboxPolicy(s.authority, snap.Policy.SandboxMode.Value, workspace, sandboxNetwork(snap))
}

// notWider refuses an escalation that would not widen the sandbox.
func notWider(mode string, current Sandbox) escalation {
	return escalation{blocked: fmt.Sprintf("Permission denied: sandbox escalation to '%s' is not strictly wider than the current '%s' sandbox.", mode, current.Type)}
}
