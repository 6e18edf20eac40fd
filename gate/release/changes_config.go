package release

// The configuration's and the early layers' changes (gate/config, layers
// 1, 2, 4 and 9): docs/codewhale/releases/0.10.0.md B.0–B.2, B.4, B.9 and
// docs/codewhale/releases/0.10.1.md Part D′.
var (
	// ThreeModes: only Agent, Plan and Operate; yolo spellings are Agent
	// with the Full Access posture, auto is Agent.
	ThreeModes = Change{ID: "B.0", Since: "0.10.0", Summary: "only the Agent, Plan and Operate modes exist: yolo is Agent with Full Access, auto is Agent"}
	// AddedConfigKeys: sandbox network and read deny-list keys,
	// [approval] and [tools] timeouts, [features] code_mode, …
	AddedConfigKeys = Change{ID: "B.1", Since: "0.10.0", Summary: "config.toml gains sandbox_network_access, the sandbox read deny-list keys, [approval] timeout_seconds, [tools] user-input limits and [features] code_mode"}
	// RemovedConfigKeys: [context].enabled, seam keys,
	// tui.terminal_probe_timeout_ms; overlay notes_path ignored.
	RemovedConfigKeys = Change{ID: "D.9", Since: "0.10.1", Summary: "[context] enabled, the seam keys and tui.terminal_probe_timeout_ms are removed; a project overlay's notes_path is ignored"}
	// StricterRequirements: requirements.toml checks the defaults of
	// unset keys, accepts approval aliases and locks the posture when it
	// constrains sandbox modes.
	StricterRequirements = Change{ID: "D.9-requirements", Since: "0.10.1", Summary: "requirements.toml also checks an unset approval_policy or sandbox_mode (as its default), accepts approval-policy aliases, and locks the posture when it lists sandbox modes"}
	// InputAwareDenyList: disallowed_tools also matches the canonical
	// action and raw-shell dependencies, and is checked again after hooks.
	InputAwareDenyList = Change{ID: "B.2", Since: "0.10.0", Summary: "disallowed tools also match a call's canonical action and what it runs (Bash blocks every raw-shell tool), and are checked again after hooks"}
	// BashBlocksMcpServerStart: a Bash entry also blocks starting MCP
	// servers.
	BashBlocksMcpServerStart = Change{ID: "D.10", Since: "0.10.1", Summary: "a Bash entry in disallowed tools also blocks start_mcp_server and start_registry_mcp_server"}
	// BaselineWithoutYolo: the resolver's Yolo clauses are gone.
	BaselineWithoutYolo = Change{ID: "B.4", Since: "0.10.0", Summary: "the registered-tool baseline no longer has a Yolo mode: only the Full Access posture and auto_approve allow without asking"}
	// SandboxNetworkOff: the sandbox has no network unless
	// sandbox_network_access = true.
	SandboxNetworkOff = Change{ID: "B.9.1", Since: "0.10.0", Summary: "workspace-write and external sandboxes have no network unless sandbox_network_access = true (landed in 0.9.11)"}
	// ReadDenyList: credential paths and .env files cannot be read in any
	// posture.
	ReadDenyList = Change{ID: "B.9.2", Since: "0.10.0", Summary: "reads of credential stores (~/.ssh, ~/.aws, …) and .env files are refused in every posture (landed in 0.9.12)"}
	// CodeModeDefaultOn: [features] code_mode (execute_tools) defaults
	// to on.
	CodeModeDefaultOn = Change{ID: "D.12-code-mode", Since: "0.10.1", Summary: "Code mode ([features] code_mode, the execute_tools tool) is on unless turned off"}
	// ReadDenyListMoreTools: pandoc_convert and image_ocr also honour the
	// read deny-list.
	ReadDenyListMoreTools = Change{ID: "B.9.2-0.10.1", Since: "0.10.1", Summary: "the read deny-list also covers pandoc_convert and image_ocr"}
)

// configChanges lists the variables above.
var configChanges = []Change{
	ThreeModes, AddedConfigKeys, RemovedConfigKeys, StricterRequirements, InputAwareDenyList, BashBlocksMcpServerStart,
	BaselineWithoutYolo, CodeModeDefaultOn, SandboxNetworkOff, ReadDenyList, ReadDenyListMoreTools,
}
