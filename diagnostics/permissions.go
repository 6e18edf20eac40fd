package diagnostics

import "github.com/codewhale-ls/codewhale-ls/gate/config"

// lintPermissions adds the semantic lints of permissions.toml (CW200–CW209).
func lintPermissions(snap *config.Snapshot, out map[string]*FileResult) {}
