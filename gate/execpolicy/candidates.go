package execpolicy

import (
	"errors"
	"fmt"
	"strings"
)

// The approval card's two "remember" actions (§1.3): `S` saves ask rules,
// `P` ("always allow this exact rule in this repo") saves allow rules.
// Neither ever writes deny. Whether P is offered at all (dangerous calls,
// repo law, the command-safety classifier) is the caller's decision.

// askCandidates are the `S` records for a call: the trimmed command of an
// exec_shell call; the workspace-relative path of write_file/edit_file; one
// path per touched file of apply_patch (deduplicated, none at all if any is
// unsafe). Other tools, and targets that are empty, traverse, are
// drive-relative, lie outside the workspace or are the workspace root, give
// none. codewhale-ls offers no `S` choice (docs/codewhale/contract.md §4 lists none), so
// they serve only as the base of the `P` records.
func askCandidates(semantic string, input map[string]any, workspace string, patchFiles []string, fold bool) []Rule {
	switch semantic {
	case "exec_shell":
		command, _ := input["command"].(string)
		if command = strings.TrimSpace(command); command == "" {
			return nil
		}
		return []Rule{{Tool: semantic, Command: &command, Action: Ask}}
	case "write_file", "edit_file":
		target, _ := input["path"].(string)
		rel, ok := savablePath(target, workspace, fold)
		if !ok {
			return nil
		}
		return []Rule{{Tool: semantic, Path: &rel, Action: Ask}}
	case "apply_patch":
		var out []Rule
		seen := map[string]bool{}
		for _, f := range patchFiles {
			rel, ok := savablePath(f, workspace, fold)
			if !ok {
				return nil
			}
			if !seen[rel] {
				seen[rel] = true
				out = append(out, Rule{Tool: semantic, Path: &rel, Action: Ask})
			}
		}
		return out
	}
	return nil
}

// savablePath is a target's non-empty, in-workspace relative form.
func savablePath(target, workspace string, fold bool) (string, bool) {
	rel, ok := RelPath(target, workspace, fold)
	return rel, ok && rel != ""
}

// AllowCandidates are the `P` records: each `S` record as an allow scoped
// to the normalised workspace, commands made exact, each re-validated as
// the writer does.
func AllowCandidates(semantic string, input map[string]any, workspace string, patchFiles []string) ([]Rule, error) {
	return allowCandidates(askCandidates(semantic, input, workspace, patchFiles, HostFoldsCase()), workspace, HostFoldsCase())
}

// allowCandidates turns asks, which it owns, into the `P` records.
func allowCandidates(asks []Rule, workspace string, fold bool) ([]Rule, error) {
	if len(asks) == 0 {
		return nil, nil
	}
	scope, ok := WorkspaceScope(workspace)
	if !ok {
		return nil, fmt.Errorf("workspace %q is not an absolute repository root", workspace)
	}
	// The records become allows in place: askCandidates made them for this
	// call alone, and layer 8 builds them for every call it holds.
	for i := range asks {
		r := &asks[i]
		r.Action = Allow
		r.Workspace = &scope
		r.CommandExact = r.Command != nil
		if err := validateAllowRule(*r, fold); err != nil {
			return nil, err
		}
	}
	return asks, nil
}

// validateAllowRule is the writer's check of an "always allow" record: an
// allow with a normalisable workspace, an exact non-empty command or a path
// inside that workspace (not its root).
func validateAllowRule(r Rule, fold bool) error {
	switch {
	case r.Action != Allow:
		return errors.New("an always-allow record must have action allow")
	case r.Workspace == nil:
		return errors.New("an always-allow record must name its workspace")
	case r.Command == nil && r.Path == nil:
		return errors.New("an always-allow record must have a command or a path")
	}
	if _, ok := WorkspaceScope(*r.Workspace); !ok {
		return fmt.Errorf("workspace %q does not normalise to an absolute repository root", *r.Workspace)
	}
	if r.Command != nil && (!r.CommandExact || strings.TrimSpace(*r.Command) == "") {
		return errors.New("an always-allow command must be exact and non-empty")
	}
	if r.Path != nil {
		if _, ok := savablePath(*r.Path, *r.Workspace, fold); !ok {
			return fmt.Errorf("path %q is not a file inside workspace %q", *r.Path, *r.Workspace)
		}
	}
	return nil
}
