package autoreview

import "github.com/codewhale-ls/codewhale-ls/gate/tool"

// Call is a tool call as layer 6 sees it.
type Call struct {
	Tool     string         // the raw name the agent called (bash, File, mcp_x_y)
	Semantic string         // tool.Semantic(Tool, Input)
	Input    map[string]any // the call's arguments
}

// NewCall fills in the semantic name.
func NewCall(name string, input map[string]any) Call {
	return Call{Tool: name, Semantic: tool.Semantic(name, input), Input: input}
}

func (c Call) str(key string) string {
	s, _ := c.Input[key].(string)
	return s
}

// flag reports an input boolean set to true; other values do not count.
func (c Call) flag(key string) bool {
	b, _ := c.Input[key].(bool)
	return b
}

// action is input.action when it is a string.
func (c Call) action() string { return c.str("action") }
