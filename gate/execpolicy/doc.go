// Package execpolicy re-implements Codewhale's execution-policy engine and
// its permissions.toml file (docs/codewhale/execpolicy.md): typed rules in layered
// rulesets, hard-deny and trusted command prefixes, the decision procedure
// and approval-mode table, the TUI's layer-5 adapter, the strict file
// loader with positioned problems, and the rule records the approval card
// writes. Shell splitting and matching live in the shell sub-package.
package execpolicy
