package agentcli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
)

// The test binary doubles as a stdio MCP server when started with
// FakeMCPEnv=1, so the MCP cases need nothing installed besides the CLI.
// Its one tool, touch_marker, creates fakeMCPMarkerEnv's file: a side
// effect that shows whether a call the hook judged actually ran.
const (
	FakeMCPEnv       = "CODEWHALE_REALAGENTS_FAKE_MCP"
	fakeMCPMarkerEnv = "CODEWHALE_REALAGENTS_MCP_MARKER"
	FakeMCPServer    = "fake"
	FakeMCPTool      = "touch_marker"
)

// ServeFakeMCPIfAsked serves the fake MCP server on stdin and stdout and
// reports true when this process was started as one (FakeMCPEnv=1): the
// TestMain of a package whose tests use Agent.MCPArgs calls it first and
// returns when it reports true.
func ServeFakeMCPIfAsked() bool {
	if os.Getenv(FakeMCPEnv) != "1" {
		return false
	}
	serveFakeMCP()
	return true
}

func serveFakeMCP() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var Result any
		switch req.Method {
		case "initialize":
			v := req.Params.ProtocolVersion
			if v == "" {
				v = "2025-06-18"
			}
			Result = map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": FakeMCPServer, "version": "1.0.0"}}
		case "tools/list":
			Result = map[string]any{"tools": []any{map[string]any{
				"name": FakeMCPTool, "description": "Creates the marker file.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string"}}},
			}}}
		case "tools/call":
			if p := os.Getenv(fakeMCPMarkerEnv); p != "" {
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = os.WriteFile(p, []byte("touched\n"), 0o644)
			}
			Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "marker touched"}}}
		default:
			Result = map[string]any{}
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": Result})
	}
}
