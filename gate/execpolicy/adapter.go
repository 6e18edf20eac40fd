package execpolicy

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// VerdictKind is the TUI adapter's answer (§2.8).
type VerdictKind int

const (
	NoOpinion VerdictKind = iota
	AllowCall
	PromptCall
	BlockCall
)

func (k VerdictKind) String() string {
	switch k {
	case AllowCall:
		return "allow"
	case PromptCall:
		return "prompt"
	case BlockCall:
		return "block"
	}
	return "none"
}

// Verdict is layer 5's outcome for one call.
type Verdict struct {
	Kind VerdictKind
	// Reason is the engine's reason for a Prompt or Block.
	Reason string
	// Rule is the matched rule as Codewhale spells it (a typed rule's
	// label or a prefix), "" when none.
	Rule string
	// Path is the file path whose check decided, nil for shell calls and
	// path-less file calls.
	Path *string
	// Result is the deciding engine result (nil when the call was not
	// evaluated); its RuleSource/ActionSource say which rule it was.
	Result *Result
}

// EvaluatedTools are the policy tool names the typed-rule gate checks, in
// Codewhale's order: the shell, then the file tools. A rule naming any other
// tool never applies as a typed rule.
var EvaluatedTools = []string{"exec_shell", "read_file", "write_file", "edit_file", "apply_patch", "list_dir", "file_search", "grep_files"}

// isFileTool reports the file tools among them.
func isFileTool(semantic string) bool {
	return semantic != "exec_shell" && slices.Contains(EvaluatedTools, semantic)
}

// taskShellTools run a command as the shell would, and from 0.10.1 meet
// the shell's deny and ask rules (docs/codewhale/releases/0.10.1.md, D.6).
var taskShellTools = []string{"task_shell_start", "task_gate_run"}

// Evaluate is the TUI's typed-rule gate (layer 5). semantic is the
// canonical tool name (tool.Semantic); patchFiles are apply_patch's touched
// files from the caller's patch preflight. Only exec_shell with a string
// command and the seven file tools are evaluated, and from 0.10.1 the
// command of a task tool, against the shell's deny and ask rules only (a
// shell allow grants it nothing); the engine runs with Never under posture
// Never and OnFailure otherwise.
func Evaluate(engine *Engine, semantic string, input map[string]any, cwd string, posture session.Posture, patchFiles []string) Verdict {
	if engine == nil {
		return Verdict{}
	}
	mode := Mode{Kind: OnFailure}
	if posture == session.Never {
		mode = Mode{Kind: Never}
	}
	task := engine.has.taskShellRules && slices.Contains(taskShellTools, semantic)
	if semantic == DefaultTool || task {
		command, ok := input["command"].(string)
		if !ok {
			return Verdict{}
		}
		v := verdictOf(engine.Check(Input{Command: command, Cwd: cwd, Tool: DefaultTool, Mode: mode}), nil)
		if task {
			return taskVerdict(v)
		}
		return v
	}
	if !isFileTool(semantic) {
		return Verdict{}
	}
	paths := filePaths(semantic, input, patchFiles)
	if len(paths) == 0 {
		return verdictOf(engine.Check(Input{Cwd: cwd, Tool: semantic, Mode: mode}), nil)
	}
	verdicts := make([]Verdict, len(paths))
	for i := range paths {
		verdicts[i] = verdictOf(engine.Check(Input{Cwd: cwd, Tool: semantic, Path: &paths[i], Mode: mode}), &paths[i])
	}
	return foldVerdicts(verdicts)
}

// taskVerdict keeps a shell verdict's block or prompt for a task tool,
// which 0.9.10 never checked, so the change is named; anything else has no
// opinion.
func taskVerdict(v Verdict) Verdict {
	if v.Kind != BlockCall && v.Kind != PromptCall {
		return Verdict{}
	}
	res := *v.Result
	res.Changes = append(slices.Clone(res.Changes), release.TaskShellRules)
	v.Result = &res
	return v
}

// filePaths is what each file tool is checked with: input.path trimmed (an
// empty one means no path), `.` for a path-less list_dir, and every touched
// file for apply_patch.
func filePaths(semantic string, input map[string]any, patchFiles []string) []string {
	if semantic == "apply_patch" {
		return patchFiles
	}
	p, _ := input["path"].(string)
	if p = strings.TrimSpace(p); p != "" {
		return []string{p}
	}
	if semantic == "list_dir" {
		return []string{"."}
	}
	return nil
}

// verdictOf maps an engine result: not allowed blocks, approval prompts, a
// typed allow allows, and anything else (a trusted prefix included) has no
// opinion.
func verdictOf(r Result, path *string) Verdict {
	v := Verdict{Path: path, Result: &r}
	if r.MatchedRule != nil {
		v.Rule = *r.MatchedRule
	}
	switch {
	case !r.Allow:
		v.Kind, v.Reason = BlockCall, r.Reason
	case r.RequiresApproval:
		v.Kind, v.Reason = PromptCall, r.Reason
	case r.MatchedAction != nil && *r.MatchedAction == Allow:
		v.Kind = AllowCall
	}
	return v
}

// foldVerdicts combines per-path verdicts: the first Block, else the first
// Prompt, else Allow only if every path allowed, else no opinion.
func foldVerdicts(vs []Verdict) Verdict {
	for _, kind := range []VerdictKind{BlockCall, PromptCall} {
		for _, v := range vs {
			if v.Kind == kind {
				return v
			}
		}
	}
	for _, v := range vs {
		if v.Kind != AllowCall {
			return v
		}
	}
	return vs[0]
}
