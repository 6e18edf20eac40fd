package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestUnhookedWarnsPerConfiguredAgent(t *testing.T) {
	ws, home := filepath.Join(t.TempDir(), "w[1]"), t.TempDir()
	claude := Agents["claude-code"]
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
	gemini := Agents["gemini-cli"]
	userGemini, _ := gemini.Install(nil, false, "/bin/codewhale-ls")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), string(userGemini))

	got := map[string]Finding{}
	for _, f := range Unhooked(ws, home) {
		if f.Problem.Code != CodeUnhooked {
			t.Errorf("code %s", f.Problem.Code)
		}
		rel, _ := filepath.Rel(ws, f.Path)
		got[filepath.ToSlash(rel)] = f
	}
	if len(got) != 3 {
		t.Fatalf("warned about %d files, want cursor, copilot and codex: %v", len(got), got)
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
	copilot := Agents["copilot-cli"]
	ours, _ := copilot.Install(nil, false, "codewhale-ls")
	writeFile(t, filepath.Join(ws, ".github", "hooks", "codewhale-ls.json"), string(ours))
	if got := Unhooked(ws, ""); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
}

// A workspace setting that turns an agent's hooks off is warned about at
// its key, even where our hook is installed for the user.
func TestUnhookedWarnsWhereHooksAreTurnedOff(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	claude, gemini := Agents["claude-code"], Agents["gemini-cli"]
	for _, a := range []Agent{claude, gemini} {
		user, _ := a.Install(nil, false, "/bin/codewhale-ls")
		writeFile(t, filepath.Join(home, filepath.FromSlash(a.user)), string(user))
	}
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), "{\"model\": \"opus\"}\n")
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), "{\n  // quiet\n  \"disableAllHooks\": true\n}\n")
	writeFile(t, filepath.Join(ws, ".gemini", "settings.json"), `{"hooksConfig": {"enabled": false}}`)
	got := Unhooked(ws, home)
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
	if got := Unhooked(ws, home); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
}
