package autoreview

import (
	"github.com/codewhale-ls/codewhale-ls/gate/shellsafety"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// Call is a tool call as layer 6 sees it.
type Call struct {
	Tool     string         // the raw name the agent called (bash, File, mcp_x_y)
	Semantic string         // tool.Semantic(Tool, Input)
	Input    map[string]any // the call's arguments
	// Shell is shellsafety.Parse of input.command for a shell-category
	// call, so the classifiers read the command once. NewCall sets it; a
	// caller that already parsed the same command may set it instead. When
	// nil, Classify and Decide parse the command themselves.
	Shell *shellsafety.Command
}

// NewCall fills in the semantic name and, for a shell call, the parsed
// command.
func NewCall(name string, input map[string]any) Call {
	return Call{Tool: name, Semantic: tool.Semantic(name, input), Input: input}.withShell()
}

// withShell parses input.command of a shell-category call, unless done.
func (c Call) withShell() Call {
	if c.Shell == nil && category(c.Semantic) == Shell {
		c.Shell = shellsafety.Parse(c.str("command"))
	}
	return c
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
