package hooks

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Call is the tool call a tool_call_before hook is asked about.
type Call struct {
	ToolName  string         // the call's current name: bash, File, mcp_x_y
	CallID    string         // the model's tool call id
	Input     map[string]any // the prepared input
	Mode      string         // engine spelling: Agent, Plan, Operate, Yolo, Auto
	SessionID string         // sess_xxxxxxxx
	Workspace string
	Model     string
}

const (
	maxArgsBytes  = 10_000
	argsTruncated = "...[truncated]"
)

func (c Call) matchContext(r release.Release) MatchContext {
	return MatchContext{ToolName: c.ToolName, Input: c.Input, Mode: c.Mode, Release: r}
}

// env is the variables a hook process gets on top of the inherited
// environment (docs/codewhale/pipeline.md §3.4).
func (c Call) env(r release.Release) ([]string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json does not escape <, >, &
	if err := enc.Encode(c.Input); err != nil {
		return nil, err
	}
	args := truncateArgs(string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
	return []string{
		"DEEPSEEK_TOOL_NAME=" + c.ToolName,
		"DEEPSEEK_TOOL_CALL_ID=" + c.CallID,
		"CODEWHALE_TOOL_CALL_ID=" + c.CallID,
		"DEEPSEEK_TOOL_ARGS=" + args,
		"DEEPSEEK_MODE=" + EngineMode(r, c.Mode),
		"DEEPSEEK_SESSION_ID=" + c.SessionID,
		"CODEWHALE_SESSION_ID=" + c.SessionID,
		"DEEPSEEK_WORKSPACE=" + c.Workspace,
		"DEEPSEEK_MODEL=" + c.Model,
	}, nil
}

// truncateArgs keeps the first 10 000 bytes, backing off to a character
// boundary so the value stays valid UTF-8.
func truncateArgs(s string) string {
	if len(s) <= maxArgsBytes {
		return s
	}
	cut := maxArgsBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + argsTruncated
}
