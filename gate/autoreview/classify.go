package autoreview

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/shellsafety"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// Category is what kind of tool a call is (docs/codewhale/pipeline.md §6.2).
type Category int

const (
	Unknown Category = iota
	Agent
	FileWrite
	Network
	Shell
	McpRead
	McpAction
	Safe
)

func (c Category) String() string {
	switch c {
	case Agent:
		return "agent"
	case FileWrite:
		return "file_write"
	case Network:
		return "network"
	case Shell:
		return "shell"
	case McpRead:
		return "mcp_read"
	case McpAction:
		return "mcp_action"
	case Safe:
		return "safe"
	default:
		return "unknown"
	}
}

// Risk is whether a call may change anything.
type Risk int

const (
	Destructive Risk = iota
	Benign
)

func (r Risk) String() string {
	if r == Benign {
		return "benign"
	}
	return "destructive"
}

// ActionKind is what a call does, as rules and the floor name it.
type ActionKind int

const (
	External ActionKind = iota
	Read
	Write
	ShellKind
	Publish
	DestructiveKind
)

func (k ActionKind) String() string {
	switch k {
	case Read:
		return "read"
	case Write:
		return "write"
	case ShellKind:
		return "shell"
	case Publish:
		return "publish"
	case DestructiveKind:
		return "destructive"
	default:
		return "external"
	}
}

// Classification is the §6.2 reading of a call.
type Classification struct {
	Category   Category
	Risk       Risk
	ActionKind ActionKind
}

// Classify reads a call per docs/codewhale/pipeline.md §6.2.
func Classify(c Call) Classification {
	c = c.withShell()
	cat := category(c.Semantic)
	return Classification{Category: cat, Risk: risk(c, cat), ActionKind: kind(c, cat)}
}

var (
	fileWriteTools = []string{"write", "edit", "write_file", "edit_file", "apply_patch"}
	networkTools   = []string{"web_run", "web_search", "fetch_url", "wait_for_dev_server", "registry_sync"}
	shellTools     = []string{"bash", "Bash", "exec_shell", "task_shell_start", "task_shell_wait", "exec_shell_wait",
		"exec_shell_interact", "exec_shell_cancel", "exec_wait", "exec_interact"}
	safeTools = []string{"read", "read_file", "list_dir", "work_update", "todo_write", "todo_read", "checklist_write",
		"note", "update_plan", "search", "file_search", "grep_files", "git_status", "git_diff", "git_log", "git_show",
		"git_blame", "project", "diagnostics"}
)

// category applies §6.2's list in its order: `mcp_` is checked before the
// `read_` prefix, so mcp_read_resource is an MCP action.
func category(semantic string) Category {
	has := func(prefixes ...string) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(semantic, p) })
	}
	switch {
	case semantic == "agent" || semantic == "workflow":
		return Agent
	case slices.Contains(fileWriteTools, semantic):
		return FileWrite
	case slices.Contains(networkTools, semantic):
		return Network
	case slices.Contains(shellTools, semantic):
		return Shell
	case has("list_mcp_", "read_mcp_", "get_mcp_"):
		return McpRead
	case has("mcp_"):
		return McpAction
	case slices.Contains(safeTools, semantic) || has("read_", "list_", "get_"):
		return Safe
	case semantic == "start_mcp_server" || semantic == "start_registry_mcp_server":
		return McpAction
	}
	return Unknown
}

func risk(c Call, cat Category) Risk {
	benign := false
	switch cat {
	case Safe, McpRead:
		benign = true
	case Network:
		switch c.Semantic {
		case "web_search", "wait_for_dev_server", "registry_sync":
			benign = true
		case "web_run":
			benign = !nonEmptyList(c.Input["open"]) && !nonEmptyList(c.Input["click"])
		}
	case Shell:
		benign = c.Shell.ReadOnly()
	case Agent:
		a := c.action()
		benign = a == "status" || a == "peek" || a == "list"
	}
	if benign {
		return Benign
	}
	return Destructive
}

func nonEmptyList(v any) bool {
	list, ok := v.([]any)
	return ok && len(list) > 0
}

// suffixedFamilies name their action in the kind name, so `tasks` with an
// unknown action `delete_all` still reads as destructive.
var suffixedFamilies = []string{"automation", "tasks", "github", "rlm"}

// kind applies §6.2's first-match action-kind list. The substring tests are
// deliberately naive, as in Codewhale: `…stage…` contains `tag`.
func kind(c Call, cat Category) ActionKind {
	name := c.Semantic
	if a, ok := tool.Action(c.Input); ok && slices.Contains(suffixedFamilies, c.Tool) {
		name += "_" + a
	}
	name = ascii.Lower(name)
	has := func(subs ...string) bool {
		return slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(name, s) })
	}
	switch {
	case has("push", "publish", "release", "tag"):
		return Publish
	case has("secret", "token", "credential", "password"), has("delete", "destroy", "remove", "drop", "reset"):
		return DestructiveKind
	case has("git_", "browser", "chrome", "playwright"):
		return External
	}
	if cat == Shell {
		segments := c.Shell.Segments()
		if slices.ContainsFunc(segments, (*shellsafety.Command).PublishLike) {
			return Publish
		}
		if slices.ContainsFunc(segments, (*shellsafety.Command).DestructiveLike) {
			return DestructiveKind
		}
	}
	switch cat {
	case Safe, McpRead:
		return Read
	case FileWrite:
		return Write
	case Shell:
		return ShellKind
	}
	return External
}
