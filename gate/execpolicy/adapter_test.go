package execpolicy

import (
	"slices"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

func engineFromTOML(t *testing.T, src string) *Engine {
	t.Helper()
	f, problems := ParseFile([]byte(src))
	if !f.Accepted {
		t.Fatalf("rejected: %v", problems)
	}
	return NewEngineFromFile(f, WithPathCaseFolding(false))
}

const (
	askCargoTest  = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\n"
	allowExactRep = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\ncommand_exact = true\nworkspace = \"/repo\"\naction = \"allow\"\n"
	askSecretRead = "[[rules]]\ntool = \"read_file\"\npath = \"secrets/api_key.txt\"\n"
	allowPatchAB  = "[[rules]]\ntool = \"apply_patch\"\npath = \"src/a.rs\"\nworkspace = \"/repo\"\naction = \"allow\"\n" +
		"[[rules]]\ntool = \"apply_patch\"\npath = \"src/b.rs\"\nworkspace = \"/repo\"\naction = \"allow\"\n"
)

// TestTUIVectors is docs/codewhale/execpolicy.md §5.2 (TUI1–TUI14 through the adapter) plus
// docs/codewhale/pipeline.md §5's two named Full Access vectors.
func TestTUIVectors(t *testing.T) {
	const askLabel = "tool=exec_shell command=cargo test"
	const readLabel = "tool=read_file path=secrets/api_key.txt"
	cases := []struct {
		id, rules, name string
		input           map[string]any
		workspace       string
		posture         session.Posture
		patch           []string
		kind            VerdictKind
		reason, rule    string
	}{
		{"TUI1", askCargoTest, "exec_shell", map[string]any{"command": "cargo test --workspace"}, "/repo", session.AutoReview, nil,
			PromptCall, "Typed ask rule '" + askLabel + "' requires approval.", askLabel},
		{"TUI2", askCargoTest, "Bash", map[string]any{"action": "run", "command": "cargo test --workspace"}, "/repo", session.AutoReview, nil,
			PromptCall, "Typed ask rule '" + askLabel + "' requires approval.", askLabel},
		{"TUI3", askCargoTest, "exec_shell", map[string]any{"command": "cargo test --workspace"}, "/repo", session.Never, nil,
			BlockCall, "Typed ask rule '" + askLabel + "' requires approval, but approval policy is never.", askLabel},
		{"TUI4", askCargoTest, "exec_shell", map[string]any{"command": "git status"}, "/repo", session.AutoReview, nil, NoOpinion, "", ""},
		{"TUI5", allowExactRep, "exec_shell", map[string]any{"command": "cargo test"}, "/repo", session.Ask, nil,
			AllowCall, "", "tool=exec_shell command=cargo test command_exact=true workspace=/repo"},
		{"TUI6", allowExactRep, "exec_shell", map[string]any{"command": "cargo test --workspace"}, "/repo", session.Ask, nil, NoOpinion, "", ""},
		{"TUI7", allowExactRep, "exec_shell", map[string]any{"command": "cargo test"}, "/other", session.Ask, nil, NoOpinion, "", ""},
		{"TUI8", askSecretRead, "read_file", map[string]any{"path": "secrets/api_key.txt"}, "/repo", session.AutoReview, nil,
			PromptCall, "Typed ask rule '" + readLabel + "' requires approval.", readLabel},
		{"TUI9", "[[rules]]\ntool = \"write_file\"\npath = \"src/lib.rs\"\n", "File", map[string]any{"action": "write", "path": "src/lib.rs", "content": "x"}, "/repo", session.AutoReview, nil,
			PromptCall, "Typed ask rule 'tool=write_file path=src/lib.rs' requires approval.", "tool=write_file path=src/lib.rs"},
		{"TUI10", askSecretRead, "read_file", map[string]any{"path": "/repo/secrets/api_key.txt"}, "/repo", session.AutoReview, nil,
			PromptCall, "Typed ask rule '" + readLabel + "' requires approval.", readLabel},
		{"TUI11", askSecretRead, "read_file", map[string]any{"path": "secrets/api_key.txt"}, "/repo", session.Never, nil,
			BlockCall, "Typed ask rule '" + readLabel + "' requires approval, but approval policy is never.", readLabel},
		{"TUI12", askSecretRead, "read_file", map[string]any{"path": "docs/readme.md"}, "/repo", session.AutoReview, nil, NoOpinion, "", ""},
		{"TUI13", allowPatchAB, "apply_patch", map[string]any{"input": "*** Begin Patch"}, "/repo", session.Ask, []string{"src/a.rs", "src/b.rs"},
			AllowCall, "", "tool=apply_patch path=src/a.rs workspace=/repo"},
		{"TUI14", allowPatchAB, "apply_patch", map[string]any{"input": "*** Begin Patch"}, "/repo", session.Ask, []string{"src/a.rs", "src/c.rs"}, NoOpinion, "", ""},
		{"pipeline§5-write", "[[rules]]\ntool = \"write_file\"\npath = \"CHANGELOG.md\"\nworkspace = \"/ws\"\naction = \"allow\"\n",
			"File", map[string]any{"action": "write", "path": "CHANGELOG.md"}, "/ws", session.FullAccess, nil,
			AllowCall, "", "tool=write_file path=CHANGELOG.md workspace=/ws"},
		{"pipeline§5-bash", "[[rules]]\ntool = \"exec_shell\"\ncommand = 'echo \"rm -rf /\" > \"/ws/must-survive\"'\ncommand_exact = true\nworkspace = \"/ws\"\naction = \"allow\"\n",
			"bash", map[string]any{"command": `echo "rm -rf /" > "/ws/must-survive"`}, "/ws", session.FullAccess, nil,
			AllowCall, "", `tool=exec_shell command=echo "rm -rf /" > "/ws/must-survive" command_exact=true workspace=/ws`},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			e := engineFromTOML(t, c.rules)
			v := Evaluate(e, tool.Semantic(c.name, c.input), c.input, c.workspace, c.posture, c.patch)
			if v.Kind != c.kind || v.Reason != c.reason || v.Rule != c.rule {
				t.Errorf("got %v %q rule %q, want %v %q rule %q", v.Kind, v.Reason, v.Rule, c.kind, c.reason, c.rule)
			}
		})
	}
}

// TUI15/TUI16: the loaded file drives the engine directly.
func TestTUIEngineVectors(t *testing.T) {
	cases := []struct{ id, rules, command, label string }{
		{"TUI15", askCargoTest, "cargo test --workspace", "tool=exec_shell command=cargo test"},
		{"TUI16", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"npm test\"\n", "npm test -- --runInBand", "tool=exec_shell command=npm test"},
	}
	for _, c := range cases {
		r := engineFromTOML(t, c.rules).Check(Input{Command: c.command, Tool: DefaultTool, Cwd: "/repo", Mode: Mode{Kind: OnFailure}})
		if r.Phase != NeedsApproval || r.MatchedRule == nil || *r.MatchedRule != c.label {
			t.Errorf("%s: got %v %v", c.id, r.Phase, r.MatchedRule)
		}
	}
}

func TestEvaluateGates(t *testing.T) {
	e := engineFromTOML(t, "[[rules]]\ntool = \"list_dir\"\npath = \".\"\naction = \"deny\"\n"+
		"[[rules]]\ntool = \"grep_files\"\naction = \"allow\"\n"+
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\naction = \"allow\"\n"+
		"[[rules]]\ntool = \"apply_patch\"\npath = \"a\"\n"+
		"[[rules]]\ntool = \"apply_patch\"\npath = \"b\"\naction = \"deny\"\n"+
		"[[rules]]\ntool = \"fetch_url\"\naction = \"deny\"\n"+
		"[[rules]]\ntool = \"read_file\"\ncommand = \"ls\"\naction = \"allow\"\n")
	cases := []struct {
		name     string
		semantic string
		input    map[string]any
		patch    []string
		want     VerdictKind
	}{
		{"list_dir without path is the root", "list_dir", map[string]any{}, nil, BlockCall},
		{"list_dir blank path is the root", "list_dir", map[string]any{"path": "  "}, nil, BlockCall},
		{"list_dir subdir", "list_dir", map[string]any{"path": "src"}, nil, NoOpinion},
		{"path-less grep still checked", "grep_files", map[string]any{"pattern": "x"}, nil, AllowCall},
		{"chained allow prompts", "exec_shell", map[string]any{"command": "git status ; ls"}, nil, PromptCall},
		{"glued chain does not match", "exec_shell", map[string]any{"command": "git status;ls"}, nil, NoOpinion},
		{"trusted prefix alone has no opinion", "exec_shell", map[string]any{"command": "ls -la"}, nil, NoOpinion},
		{"non-string command not evaluated", "exec_shell", map[string]any{"command": 5}, nil, NoOpinion},
		{"unevaluated tool", "fetch_url", map[string]any{}, nil, NoOpinion},
		{"any block wins", "apply_patch", map[string]any{}, []string{"a", "b"}, BlockCall},
		{"prompt before none", "apply_patch", map[string]any{}, []string{"c", "a"}, PromptCall},
		{"patch with no files checked once", "apply_patch", map[string]any{}, nil, NoOpinion},
	}
	for _, c := range cases {
		if got := Evaluate(e, c.semantic, c.input, "/workspace", session.Ask, c.patch); got.Kind != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got.Kind, c.want)
		}
	}
	if v := Evaluate(nil, "exec_shell", map[string]any{"command": "ls"}, "/w", session.Ask, nil); v.Kind != NoOpinion || v.Source() != nil {
		t.Errorf("nil engine: %v", v.Kind)
	}
	v := Evaluate(e, "apply_patch", map[string]any{}, "/workspace", session.Ask, []string{"a", "b"})
	if v.Path == nil || *v.Path != "b" || v.Source() == nil || v.Source().Index != 4 {
		t.Errorf("block verdict does not say which path and rule: %+v", v)
	}
}

// docs/codewhale/releases/0.10.1.md D.6: from 0.10.1 a task tool's command
// meets the shell's deny and ask rules, and a shell allow grants it
// nothing.
func TestTaskCommandsMeetShellRules(t *testing.T) {
	f, _ := ParseFile([]byte("[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf\"\nworkspace = \"/workspace\"\naction = \"deny\"\n" +
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo publish\"\naction = \"ask\"\n" +
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"allow\"\n"))
	cases := []struct {
		semantic, command string
		want              [3]VerdictKind // 0.9.10, 0.10.0, 0.10.1
	}{
		{"task_shell_start", "rm -rf /", [3]VerdictKind{NoOpinion, NoOpinion, BlockCall}},
		{"task_gate_run", "rm -rf build", [3]VerdictKind{NoOpinion, NoOpinion, BlockCall}},
		{"task_shell_start", "cargo publish", [3]VerdictKind{NoOpinion, NoOpinion, PromptCall}},
		{"task_shell_start", "cargo test", [3]VerdictKind{NoOpinion, NoOpinion, NoOpinion}},
		{"exec_shell", "cargo test", [3]VerdictKind{AllowCall, AllowCall, AllowCall}},
		{"exec_shell", "rm -rf /", [3]VerdictKind{BlockCall, BlockCall, BlockCall}},
	}
	for i, r := range release.Implemented {
		e := NewEngineFromFile(f, WithRelease(r))
		for _, c := range cases {
			v := Evaluate(e, c.semantic, map[string]any{"command": c.command}, "/workspace", session.Ask, nil)
			if v.Kind != c.want[i] {
				t.Errorf("%s %s %q: %v, want %v", r.Version, c.semantic, c.command, v.Kind, c.want[i])
			}
			task := c.semantic != DefaultTool && v.Kind != NoOpinion
			if task != (v.Result != nil && slices.Contains(v.Result.Changes, release.TaskShellRules)) {
				t.Errorf("%s %s %q: changes %v", r.Version, c.semantic, c.command, v.Result)
			}
		}
	}
}
