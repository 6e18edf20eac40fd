package gate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
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
	case a.mode == tool.Plan:
		def = readOnly()
	case a.mode == tool.Yolo || a.posture == tool.FullAccess || a.autoApprove:
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

// unsandboxedShellReadDenied refuses a shell call that will run outside
// Codewhale's OS sandbox (Request.OutsideSandbox) and names a path on the
// read deny-list: in Codewhale that sandbox would refuse the read when the
// command runs (describeSandbox), so a call that runs without it gets the
// refusal here, before it runs. The working directory, and every word of
// every command the line could run, is taken as a possible path (`~` and $HOME expand, a relative one is
// in the call's cwd, else the workspace); a word only computed at run time
// is not seen. Under danger-full-access no sandbox wraps Codewhale's own
// shells either, so nothing is refused.
func (p *plan) unsandboxedShellReadDenied() (Decision, bool) {
	list := p.snap.Policy.ReadDenyList
	command, _ := p.input["command"].(string)
	if !p.req.OutsideSandbox || len(list.Rules) == 0 || !tool.IsShell(p.req.Tool) || p.sandbox.Type == "danger-full-access" || command == "" {
		return Decision{}, false
	}
	dir := p.req.Workspace
	if cwd, _ := p.input["cwd"].(string); filepath.IsAbs(cwd) {
		dir = cwd
	}
	home := p.snap.Paths.Home
	// A command run inside a denied directory reads it without naming it.
	for _, word := range append([]string{dir}, shell.Words(command)...) {
		for _, path := range pathsIn(word, home) {
			if rule, denied := list.Denies(path, home, dir); denied {
				p.changed(release.ReadDenyList)
				return p.deny(LayerSandbox, fmt.Sprintf("Read access to '%s' is denied: it is on the sandbox read deny-list (%s), which Codewhale's OS sandbox applies to shell commands; this command will not run in that sandbox, so codewhale-ls refuses it before it runs.", path, rule.Spelled), nil), true
			}
		}
	}
	return Decision{}, false
}

// pathsIn are the paths a shell word may name: the word, the part after a
// redirection or an option's `=`, up to a glob's first metacharacter, with
// $HOME (or ${HOME}) at the front spelled as home.
func pathsIn(word, home string) []string {
	var out []string
	add := func(p string) {
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			p = p[:i]
		}
		for _, v := range []string{"$HOME", "${HOME}"} {
			if rest, ok := strings.CutPrefix(p, v); ok && home != "" && (rest == "" || rest[0] == '/') {
				p = home + rest
			}
		}
		if p != "" {
			out = append(out, p)
		}
	}
	add(word)
	if rest := strings.TrimLeft(word, "0123456789<>&|"); rest != word {
		add(rest)
	}
	if _, value, ok := strings.Cut(word, "="); ok {
		add(value)
	}
	return out
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
	if a.posture != tool.Ask || a.autoApprove {
		return escalation{blocked: fmt.Sprintf("Sandbox escalation requires a one-shot user approval, but the current %s posture cannot provide it.", a.posture.Label())}, true
	}
	return escalation{prompt: fmt.Sprintf("Sandbox escalation to '%s' for this exact call: %s", mode, reason), policy: &target}, true
}

// SandboxOf is the sandbox a call in workspace gets in the default mode
// (agent) and the posture the files resolve: what codewhale/status shows.
func SandboxOf(snap *config.Snapshot, workspace string) Sandbox {
	s := resolveSession(snap.Policy, snap.Release, Request{Mode: tool.Agent, Workspace: workspace})
	return sandboxPolicy(s.authority, snap.Policy.SandboxMode.Value, workspace, sandboxNetwork(snap))
}

// notWider refuses an escalation that would not widen the sandbox.
func notWider(mode string, current Sandbox) escalation {
	return escalation{blocked: fmt.Sprintf("Permission denied: sandbox escalation to '%s' is not strictly wider than the current '%s' sandbox.", mode, current.Type)}
}
