package repolaw

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/patchfiles"
)

// Hold is the repository law's verdict on one call.
type Hold struct {
	Action    Action // None when no rule matched
	Reason    string
	Invariant string // the matched rule's text: the rule label
	Target    string // the normalised target that matched
}

// writeTools are the semantic names repo law looks at; every other call,
// including a shell command that writes a protected file, passes.
var writeTools = map[string]bool{"write_file": true, "edit_file": true, "apply_patch": true, "fim_edit": true}

// Check decides a call by its semantic tool name (tool.Semantic) and input,
// for the workspace the call runs in (docs/codewhale/pipeline.md §7.2). The first matching
// (rule, target) pair sets the hold; only a block replaces an earlier ask,
// and nothing replaces a block.
func (l Law) Check(workspace, semantic string, input map[string]any) Hold {
	if !writeTools[semantic] || len(l.Rules) == 0 {
		return Hold{}
	}
	targets := normalizedTargets(workspace, input)
	var hold Hold
	for _, rule := range l.Rules {
		for _, target := range targets {
			if !rule.matches(target) {
				continue
			}
			if hold.Action == None || (hold.Action == Ask && rule.Action == Block) {
				hold = rule.hold(target)
			}
			if hold.Action == Block {
				return hold
			}
		}
	}
	return hold
}

// targets are the call's normalised, de-duplicated, non-empty targets.
func normalizedTargets(workspace string, input map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	for _, raw := range patchfiles.Targets(input) {
		t := normalizeTarget(workspace, raw)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (r Rule) matches(target string) bool {
	for _, g := range r.globs {
		if g.Match(target) {
			return true
		}
	}
	return false
}

func (r Rule) hold(target string) Hold {
	return Hold{
		Action: r.Action,
		Reason: fmt.Sprintf(`Repo law holds this write: "%s" protects %s (matched %s, %s)`,
			r.Text, strings.Join(r.Patterns, ", "), target, ConstitutionPath),
		Invariant: r.Text,
		Target:    target,
	}
}
