package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// homeEnv is an environment with home as HOME and none of the agents'
// directory variables, so that no test reads the real home.
func homeEnv(home string) config.MapEnv { return config.MapEnv{"HOME": home} }

// installFor writes our hook for binary into a's file at scope.
func installFor(t *testing.T, a Agent, scope Scope, ws string, env config.Env) string {
	t.Helper()
	path, err := a.SettingsPath(scope, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	src, err := a.Install(nil, false, "/bin/codewhale-ls")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(src))
	return path
}

func TestUnhookedWarnsPerConfiguredAgent(t *testing.T) {
	ws, home := filepath.Join(t.TempDir(), "w[1]"), t.TempDir()
	claude := named("claude-code")
	hooked, err := claude.Install([]byte("{}"), true, "/bin/codewhale-ls")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), string(hooked))
	writeFile(t, filepath.Join(ws, ".cursor", "hooks.json"), "{\n  \"version\": 1,\n  \"hooks\": {}\n}\n")
	writeFile(t, filepath.Join(ws, ".github", "hooks", "audit.json"), "{\"version\": 1, \"hooks\": {}}")
	writeFile(t, filepath.Join(ws, ".gemini", "settings.json"), "{\"theme\": \"x\"}")
	writeFile(t, filepath.Join(ws, ".codex", "hooks.json"), "{\"hooks\": ")
	// Gemini is hooked for the user: its project file needs nothing.
	installFor(t, named("gemini-cli"), User, ws, homeEnv(home))

	got := map[string]Finding{}
	for _, f := range Unhooked(ws, homeEnv(home)) {
		if f.Problem.Code != problem.AgentUnhooked {
			t.Errorf("code %s", f.Problem.Code)
		}
		rel, _ := filepath.Rel(ws, f.Problem.File)
		got[filepath.ToSlash(rel)] = f
	}
	if len(got) != 4 {
		t.Fatalf("reported %d files, want claude, cursor, copilot and codex: %v", len(got), got)
	}
	// Claude is hooked, but only per project: a note, not a warning.
	if claude := got[".claude/settings.json"].Problem; claude.Severity != problem.Info || !strings.Contains(claude.Message, "only in this project file") || !strings.Contains(claude.Message, "subdirectory") {
		t.Errorf("claude: %+v", claude)
	}
	for _, rel := range []string{".cursor/hooks.json", ".github/hooks/audit.json", ".codex/hooks.json"} {
		if got[rel].Problem.Severity != problem.Warning {
			t.Errorf("%s: %+v", rel, got[rel].Problem)
		}
	}
	cursor := got[".cursor/hooks.json"]
	if !strings.Contains(cursor.Problem.Message, "hook install cursor") || string(cursor.Src[cursor.Problem.Span.Start:cursor.Problem.Span.End]) != `"hooks": ` {
		t.Errorf("cursor: %+v", cursor.Problem)
	}
	if !strings.Contains(got[".github/hooks/audit.json"].Problem.Message, "copilot-cli") {
		t.Errorf("copilot: %+v", got[".github/hooks/audit.json"].Problem)
	}
	if !strings.Contains(got[".codex/hooks.json"].Problem.Message, "cannot tell") {
		t.Errorf("codex: %+v", got[".codex/hooks.json"].Problem)
	}
}

func TestUnhookedCopilotHookedInItsOwnFile(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".github", "hooks", "audit.json"), "{\"version\": 1, \"hooks\": {}}")
	copilot := named("copilot-cli")
	ours, _ := copilot.Install(nil, false, "codewhale-ls")
	writeFile(t, filepath.Join(ws, ".github", "hooks", "codewhale-ls.json"), string(ours))
	got := Unhooked(ws, homeEnv(t.TempDir()))
	if len(got) != 1 || got[0].Problem.Severity != problem.Info || filepath.Base(got[0].Problem.File) != "codewhale-ls.json" || !strings.Contains(got[0].Problem.Message, "untrusted folder") {
		t.Fatalf("want one note that the project hook is not read in an untrusted folder, got %+v", got)
	}
}

// A workspace setting that turns an agent's hooks off is warned about at
// its key, even where our hook is installed for the user.
func TestUnhookedWarnsWhereHooksAreTurnedOff(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	for _, name := range []string{"claude-code", "gemini-cli"} {
		installFor(t, named(name), User, ws, homeEnv(home))
	}
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), "{\"model\": \"opus\"}\n")
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), "{\n  // quiet\n  \"disableAllHooks\": true\n}\n")
	writeFile(t, filepath.Join(ws, ".gemini", "settings.json"), `{"hooksConfig": {"enabled": false}}`)
	got := Unhooked(ws, homeEnv(home))
	if len(got) != 2 {
		t.Fatalf("got %d findings, want claude's and gemini's switch: %+v", len(got), got)
	}
	for i, want := range []string{`"disableAllHooks": true`, `"enabled": false`} {
		f := got[i]
		if span := string(f.Src[f.Problem.Span.Start:f.Problem.Span.End]); span != want || !strings.Contains(f.Problem.Message, "codewhale-ls's included") {
			t.Errorf("finding %d: span %q, %s", i, span, f.Problem.Message)
		}
	}
	// Turned on again (or never off): the user's hook covers both.
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"disableAllHooks": false}`)
	writeFile(t, filepath.Join(ws, ".gemini", "settings.json"), `{"hooksConfig": {"enabled": true}}`)
	if got := Unhooked(ws, homeEnv(home)); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
}

// TestUnhookedWarnsWhereCopilotHooksAreTurnedOff: Copilot's
// disableAllHooks, in the repository's .github/copilot/settings.json or in
// $COPILOT_HOME/settings.json, turns our hook off as Claude's does; a
// repository value overrides the user's.
func TestUnhookedWarnsWhereCopilotHooksAreTurnedOff(t *testing.T) {
	ws, copilotHome := t.TempDir(), t.TempDir()
	env := config.MapEnv{"HOME": t.TempDir(), "COPILOT_HOME": copilotHome}
	copilot := named("copilot-cli")
	installFor(t, copilot, User, ws, env)
	userSettings := filepath.Join(copilotHome, "settings.json")
	repoSettings := filepath.Join(ws, ".github", "copilot", "settings.json")
	for _, tc := range []struct {
		name       string
		repo, user string // "" leaves the file out
		want       string // the file warned about, "" for none
	}{
		{"repository", "{\n  \"disableAllHooks\": true\n}\n", "", repoSettings},
		{"user", "", "{\"model\": \"x\", \"disableAllHooks\": true}", userSettings},
		{"repository overrides user", `{"disableAllHooks": false}`, `{"disableAllHooks": true}`, ""},
		{"on", `{"disableAllHooks": false}`, `{}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for path, content := range map[string]string{repoSettings: tc.repo, userSettings: tc.user} {
				_ = os.Remove(path)
				if content != "" {
					writeFile(t, path, content)
				}
			}
			got := Unhooked(ws, env)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Problem.File != tc.want || got[0].Problem.Severity != problem.Warning || !strings.Contains(got[0].Problem.Message, "disableAllHooks = true") {
				t.Fatalf("want one warning on %s, got %+v", tc.want, got)
			}
			if span := string(got[0].Src[got[0].Problem.Span.Start:got[0].Problem.Span.End]); span != `"disableAllHooks": true` {
				t.Errorf("span %q", span)
			}
		})
	}
}

// TestUnhookedSeesUserHooksWhereTheAgentReadsThem: a user-level hook
// counts in the agent's own user directory (CODEX_HOME, COPILOT_HOME's
// hooks/*.json and settings.json), not in the default one the variable
// moved away from; one only in the project gets the per-project note.
func TestUnhookedSeesUserHooksWhereTheAgentReadsThem(t *testing.T) {
	hooked := func(a Agent) string {
		src, err := a.Install(nil, false, "/bin/codewhale-ls")
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	codex, copilot := named("codex"), named("copilot-cli")
	for _, tc := range []struct {
		name     string
		files    map[string]string // relative to a temp root: ws/, home/, agent/
		env      []string          // variables set to root/agent
		severity problem.Severity  // 0: no finding
	}{
		{"codex hooked in CODEX_HOME", map[string]string{"agent/hooks.json": hooked(codex)}, []string{"CODEX_HOME"}, 0},
		{"codex hooked in ~/.codex, which CODEX_HOME moved", map[string]string{"home/.codex/hooks.json": hooked(codex)}, []string{"CODEX_HOME"}, problem.Warning},
		{"codex hooked only in the project", map[string]string{"ws/.codex/hooks.json": hooked(codex)}, nil, problem.Info},
		{"copilot hooked in its own user file", map[string]string{"agent/hooks/codewhale-ls.json": hooked(copilot)}, []string{"COPILOT_HOME"}, 0},
		{"copilot hooked in another user hooks file", map[string]string{"home/.copilot/hooks/team.json": hooked(copilot)}, nil, 0},
		{"copilot hooked in its user settings.json", map[string]string{"agent/settings.json": "{\n  \"model\": \"x\",\n  " + strings.TrimPrefix(hooked(copilot), "{\n  \"version\": 1,\n  ")}, []string{"COPILOT_HOME"}, 0},
		{"copilot hooked in ~/.copilot, which COPILOT_HOME moved", map[string]string{"home/.copilot/hooks/codewhale-ls.json": hooked(copilot)}, []string{"COPILOT_HOME"}, problem.Warning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			ws := filepath.Join(root, "ws")
			env := config.MapEnv{"HOME": filepath.Join(root, "home")}
			for _, v := range tc.env {
				env[v] = filepath.Join(root, "agent")
			}
			// The agent is configured in the workspace either way.
			writeFile(t, filepath.Join(ws, ".codex", "hooks.json"), "{}")
			writeFile(t, filepath.Join(ws, ".github", "hooks", "audit.json"), `{"version": 1, "hooks": {}}`)
			for rel, content := range tc.files {
				writeFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
			}
			agent := codex
			if strings.HasPrefix(tc.name, "copilot") {
				agent = copilot
			}
			var got []Finding
			for _, f := range Unhooked(ws, env) {
				if strings.Contains(f.Problem.Message, agent.Name) {
					got = append(got, f)
				}
			}
			if tc.severity == 0 {
				if len(got) != 0 {
					t.Fatalf("got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Problem.Severity != tc.severity {
				t.Fatalf("want one finding of severity %v, got %+v", tc.severity, got)
			}
			if tc.severity == problem.Info && !strings.Contains(got[0].Problem.Message, "`codewhale-ls hook install codex`") {
				t.Errorf("the note does not suggest the user-level install: %s", got[0].Problem.Message)
			}
		})
	}
}

// TestWatchedListsTheUserLevelFiles: the editor re-checks when a file
// Unhooked reads changes, in the agents' own directories too.
func TestWatchedListsTheUserLevelFiles(t *testing.T) {
	ws, codexHome, copilotHome := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(copilotHome, "hooks", "team.json"), "{}")
	env := config.MapEnv{"HOME": "/h", "CODEX_HOME": codexHome, "COPILOT_HOME": copilotHome}
	watched := Watched(ws, env)
	for _, want := range []string{
		filepath.Join(codexHome, "hooks.json"),
		filepath.Join(copilotHome, "hooks", "codewhale-ls.json"),
		filepath.Join(copilotHome, "hooks", "team.json"),
		filepath.Join(copilotHome, "settings.json"),
		filepath.Join(ws, ".github", "copilot", "settings.json"),
		filepath.FromSlash("/h/.claude/settings.json"),
	} {
		if !slices.Contains(watched, want) {
			t.Errorf("%s is not watched: %v", want, watched)
		}
	}
	if slices.Contains(watched, filepath.FromSlash("/h/.codex/hooks.json")) {
		t.Error("~/.codex/hooks.json watched although CODEX_HOME moves it")
	}
}
