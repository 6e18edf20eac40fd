package tool

// familyActions maps an action family and its action to the legacy semantic
// name the policy layers reason about (docs/codewhale/pipeline.md §0.3).
var familyActions = map[string]map[string]string{
	"bash": {"run": "exec_shell", "wait": "exec_shell_wait", "interact": "exec_shell_interact", "cancel": "exec_shell_cancel"},
	"File": {"read": "read_file", "list": "list_dir", "search_name": "file_search", "search_content": "grep_files",
		"write": "write_file", "edit": "edit_file", "patch": "apply_patch"},
	"Git": {"status": "git_status", "diff": "git_diff", "log": "git_log", "show": "git_show", "blame": "git_blame"},
	"Run": {"tests": "run_tests", "verifiers": "run_verifiers"},
	"Web": {"search": "web_search", "fetch": "fetch_url", "wait": "wait_for_dev_server"},
	"rlm": {"session_objects": "rlm_session_objects", "open": "rlm_open", "eval": "rlm_eval", "configure": "rlm_configure", "close": "rlm_close"},
	"tasks": {"create": "task_create", "list": "task_list", "read": "task_read", "cancel": "task_cancel", "gate_run": "task_gate_run",
		"pr_attempt_record": "pr_attempt_record", "pr_attempt_list": "pr_attempt_list", "pr_attempt_read": "pr_attempt_read", "pr_attempt_preflight": "pr_attempt_preflight"},
	"automation": {"create": "automation_create", "list": "automation_list", "read": "automation_read", "update": "automation_update",
		"pause": "automation_pause", "resume": "automation_resume", "delete": "automation_delete", "run": "automation_run"},
	"github": {"issue_context": "github_issue_context", "pr_context": "github_pr_context", "comment": "github_comment",
		"close_issue": "github_close_issue", "close_pr": "github_close_pr"},
}

// familyDefaults is the action a family call means when it names none.
var familyDefaults = map[string]string{"bash": "run", "File": "read", "Git": "status", "Run": "tests", "Web": "search"}

var primitives = map[string]string{"read": "read_file", "write": "write_file", "edit": "edit_file"}

func family(name string) string {
	if name == "Bash" {
		return "bash"
	}
	return name
}

// Action returns input.action when it is a string.
func Action(input map[string]any) (string, bool) {
	a, ok := input["action"].(string)
	return a, ok
}

// Semantic returns the canonical name of a call: `bash`+run → exec_shell,
// `File`+write → write_file, `read` → read_file; other names are unchanged.
func Semantic(name string, input map[string]any) string {
	if p, ok := primitives[name]; ok {
		return p
	}
	fam := family(name)
	actions, ok := familyActions[fam]
	if !ok {
		return name
	}
	action, ok := Action(input)
	if !ok {
		action, ok = familyDefaults[fam]
		if !ok {
			return name
		}
	}
	if s, ok := actions[action]; ok {
		return s
	}
	return name
}

// IsShell reports the raw names that run a shell command.
func IsShell(name string) bool {
	return name == "bash" || name == "Bash" || name == "exec_shell"
}

// WriteSemantics are the semantic names that write files.
func IsFileWrite(semantic string) bool {
	switch semantic {
	case "write_file", "edit_file", "apply_patch":
		return true
	}
	return false
}
