// Package tool holds Codewhale's tool names as every layer of the gate
// compares them: the canonical (semantic) names (docs/codewhale/pipeline.md
// §0.3) and the spellings of MCP tools.
package tool

import "strings"

// LiveMCPName is the call name Codewhale gives the MCP tool that
// `mcp__server__tool` (another agent's spelling) means: mcp_<server>_<tool>,
// single underscores. ok is false for names not spelled that way, which
// is the only case where a name compared with raw call names provably
// never matches an MCP call.
func LiveMCPName(name string) (live string, ok bool) {
	if !strings.HasPrefix(name, "mcp__") {
		return "", false
	}
	return strings.ReplaceAll(name, "__", "_"), true
}
