package agents

import (
	"maps"

	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// counterpart is the Codewhale tool an agent's tool stands for, and where
// the input fields Codewhale's layers read come from: fields[f] lists the
// agent's names for Codewhale's field f, first present wins.
type counterpart struct {
	tool   string
	fields map[string][]string
}

// The Codewhale tools agents' tools map to, with the fields each reads.
func shell(from ...string) counterpart {
	return counterpart{"exec_shell", map[string][]string{"command": from}}
}
func read(from ...string) counterpart {
	return counterpart{"read_file", map[string][]string{"path": from}}
}
func write(path, content []string) counterpart {
	return counterpart{"write_file", map[string][]string{"path": path, "content": content}}
}
func edit(from ...string) counterpart {
	return counterpart{"edit_file", map[string][]string{"path": from}}
}
func patch(from ...string) counterpart {
	return counterpart{"apply_patch", map[string][]string{"patch": from}}
}
func listDir(from ...string) counterpart {
	return counterpart{"list_dir", map[string][]string{"path": from}}
}
func search(codewhaleTool string, pattern, path []string) counterpart {
	return counterpart{codewhaleTool, map[string][]string{"pattern": pattern, "path": path}}
}
func fetch(from ...string) counterpart {
	return counterpart{"fetch_url", map[string][]string{"url": from}}
}
func webSearch(from ...string) counterpart {
	return counterpart{"web_search", map[string][]string{"query": from}}
}

func names(n ...string) []string { return n }

// translate maps an agent's tool call to Codewhale's. The agent's input is
// kept whole (Codewhale's own hooks see it) and Codewhale's field names are
// added where the agent spells them otherwise. An MCP tool spelled
// mcp__server__tool becomes mcp_server_tool; any other tool without a
// counterpart keeps its name, so Codewhale decides it as an unknown tool.
func translate(table map[string]counterpart, agentTool string, input map[string]any) (string, map[string]any) {
	out := maps.Clone(input)
	if out == nil {
		out = map[string]any{}
	}
	c, ok := table[agentTool]
	if !ok {
		if live, isMCP := tool.LiveMCPName(agentTool); isMCP {
			return live, out
		}
		return agentTool, out
	}
	for field, from := range c.fields {
		if _, present := out[field]; present {
			continue
		}
		for _, f := range from {
			if v, ok := input[f]; ok {
				out[field] = v
				break
			}
		}
	}
	return c.tool, out
}
