package diagnostics

import "github.com/codewhale-ls/codewhale-ls/gate/config"

// lintLoosening compares the files with their baselines (CW500).
func lintLoosening(in Input, snap *config.Snapshot, out map[string]*FileResult) {}
