package release

// The hooks' and the approval layer's changes (gate/hooks, layers 3 and 8,
// approvals): docs/codewhale/releases/0.10.0.md B.3, B.8 and
// docs/codewhale/releases/0.10.1.md Part D′.
var (
	// FifteenHookEvents: session_idle, session_error, waiting_for_user
	// and session_busy join the hook events.
	FifteenHookEvents = Change{ID: "B.3-events", Since: "0.10.0", Summary: "hooks.toml has 15 events (session_idle, session_error, waiting_for_user, session_busy are new; landed in 0.9.13)"}
	// HookDigestApproval: a project hooks.toml loads only when its exact
	// bytes were approved, besides the workspace being trusted.
	HookDigestApproval = Change{ID: "B.3-digest", Since: "0.10.0", Summary: "a project hooks.toml runs only once the digest of its exact bytes is approved (/hooks approve), besides the workspace being trusted"}
	// HookModeThree: hook mode conditions see only the three modes.
	HookModeThree = Change{ID: "B.3-mode", Since: "0.10.0", Summary: "a hook's mode condition sees only agent, plan and operate: yolo and auto never match"}
	// HookShellAliases: bash, Bash and exec_shell are one tool for
	// tool_name conditions.
	HookShellAliases = Change{ID: "D.8", Since: "0.10.1", Summary: "bash, Bash and exec_shell are one tool for a hook's tool_name condition"}
	// ApprovalTimeout: [approval] timeout_seconds bounds an approval card;
	// expiry denies.
	ApprovalTimeout = Change{ID: "B.8.1", Since: "0.10.0", Summary: "[approval] timeout_seconds bounds an unanswered approval, which then denies"}
	// RuntimeApprovalWait: [tools] user_input_timeout_seconds bounds how
	// long a runtime (API) approval waits; expiry denies.
	RuntimeApprovalWait = Change{ID: "B.8.2", Since: "0.10.0", Summary: "[tools] user_input_timeout_seconds bounds a runtime approval's wait, which then denies (landed in 0.9.13)"}
	// SessionGrantsByFamily: "approve for session" grants the command
	// family (grouping key), not the whole tool.
	SessionGrantsByFamily = Change{ID: "B.8.3", Since: "0.10.0", Summary: "\"approve for session\" grants the command family, no longer the whole tool (landed in 0.9.12)"}
	// PatchGrantsPerFile: apply_patch's grouping key comes from the files
	// the patch touches; an unresolvable patch gets its own key.
	PatchGrantsPerFile = Change{ID: "B.8.3-patch", Since: "0.10.0", Summary: "apply_patch session grants are per set of files the patch touches; an unreadable patch shares no grant"}
	// ShellGrantsNarrowed: session grants on shell cover only a simple
	// known family with value-free options; others the exact command.
	ShellGrantsNarrowed = Change{ID: "D.7", Since: "0.10.1", Summary: "a shell session grant covers a simple known command family only; any other command is granted exactly"}
)

// pipelineChanges lists the variables above.
var pipelineChanges = []Change{
	FifteenHookEvents, HookDigestApproval, HookModeThree, HookShellAliases,
	ApprovalTimeout, RuntimeApprovalWait, SessionGrantsByFamily, PatchGrantsPerFile, ShellGrantsNarrowed,
}
