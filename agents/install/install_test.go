package install

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

const testBinary = "/opt/codewhale ls/bin/codewhale-ls"

// settingsInputs are files as users write them: every one must survive
// install then uninstall byte for byte.
var settingsInputs = map[string]string{
	"empty object":    "{}\n",
	"one key":         "{\n  \"model\": \"opus\"\n}\n",
	"crlf and tabs":   "{\r\n\t\"hooks\": {\r\n\t\t\"PostToolUse\": []\r\n\t}\r\n}\r\n",
	"no final eol":    `{"hooks":{"PreToolUse":[],"BeforeTool":[]}}`,
	"bom":             "\xef\xbb\xbf{ \"a\": 1 }\n",
	"empty with note": "{ // nothing yet\n}\n",
	"comments and trailing commas": `// team settings
{
  /* keep me */ "permissions": {"allow": ["Bash(ls)",],}, // after
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}, // theirs
    ],
    "BeforeTool": [ /* none */ ],
    "preToolUse": [
      {"command": "./other"}
    ],
  },
}
`,
	"cursor events": "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      {\"command\": \"./audit.sh\"}\n    ],\n    \"beforeReadFile\": []\n  }\n}\n",
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, name := range agents.Names() {
		agent := named(name)
		for label, input := range settingsInputs {
			t.Run(name+"/"+label, func(t *testing.T) {
				installed, err := agent.Install([]byte(input), true, testBinary)
				if err != nil {
					t.Fatal(err)
				}
				if string(installed) == input {
					t.Fatal("install changed nothing")
				}
				if ok, err := agent.Installed(installed); err != nil || !ok {
					t.Fatalf("Installed = %v, %v after install:\n%s", ok, err, installed)
				}
				if !strings.Contains(input, "//") && !strings.Contains(input, ",]") && !strings.Contains(input, ",}") && !strings.Contains(input, "/*") {
					if !json.Valid([]byte(strings.TrimPrefix(string(installed), "\xef\xbb\xbf"))) {
						t.Fatalf("install made invalid JSON:\n%s", installed)
					}
				}
				if strings.Contains(input, "\r\n") && strings.Count(string(installed), "\n") != strings.Count(string(installed), "\r\n") {
					t.Fatalf("install mixed line endings into a CRLF file:\n%q", installed)
				}
				again, err := agent.Install(installed, true, testBinary)
				if err != nil || string(again) != string(installed) {
					t.Fatalf("second install changed the file (err %v):\n%s", err, again)
				}
				removed, err := agent.Uninstall(installed, testBinary)
				if err != nil {
					t.Fatal(err)
				}
				if string(removed) != input {
					t.Fatalf("round trip is not byte-identical:\nwant %q\ngot  %q", input, removed)
				}
				if ok, _ := agent.Installed([]byte(input)); ok {
					t.Fatal("Installed true before install")
				}
			})
		}
	}
}

func TestInstallClaudeIntoExistingFile(t *testing.T) {
	agent := named("claude-code")
	src := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": []}\n    ]\n  }\n}\n"
	got, err := agent.Install([]byte(src), true, "/usr/bin/codewhale-ls")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": []},\n" +
		"      {\"matcher\":\"*\",\"hooks\":[{\"type\":\"command\",\"command\":\"/usr/bin/codewhale-ls hook claude-code --timeout 600 || exit 2\",\"timeout\":600}]}\n    ]\n  }\n}\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestInstallMissingFileStartsFromSkeleton(t *testing.T) {
	agent := named("copilot-cli")
	got, err := agent.Install(nil, false, "codewhale-ls")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version int `json:"version"`
		Hooks   struct {
			PreToolUse []struct {
				Type, Bash, Powershell string
				TimeoutSec             int
			} `json:"preToolUse"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("%v:\n%s", err, got)
	}
	if v.Version != 1 || len(v.Hooks.PreToolUse) != 1 || v.Hooks.PreToolUse[0].Bash != "codewhale-ls hook copilot-cli --timeout 30" || v.Hooks.PreToolUse[0].TimeoutSec != 30 || v.Hooks.PreToolUse[0].Type != "command" {
		t.Fatalf("unexpected file:\n%s", got)
	}
}

func TestUninstallFindsOurEntryReformatted(t *testing.T) {
	agent := named("claude-code")
	src := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"/elsewhere/codewhale-ls hook claude-code --timeout 600 || exit 2\", \"timeout\": 600}\n        ]\n      },\n      {\"matcher\": \"Bash\", \"hooks\": []}\n    ]\n  }\n}\n"
	if ok, err := agent.Installed([]byte(src)); err != nil || !ok {
		t.Fatalf("Installed = %v, %v for an entry of another binary", ok, err)
	}
	got, err := agent.Uninstall([]byte(src), testBinary)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": []}\n    ]\n  }\n}\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestUninstallKeepsEntriesThatAreNotOurs(t *testing.T) {
	agent := named("claude-code")
	// Our command with another timeout is the user's own entry.
	src := `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "codewhale-ls hook claude-code --timeout 600 || exit 2", "timeout": 5}]}]}}`
	got, err := agent.Uninstall([]byte(src), "codewhale-ls")
	if err != nil || string(got) != src {
		t.Fatalf("uninstall touched a user's entry (err %v):\n%s", err, got)
	}
}

func TestAnotherProgramsHookIsNotOurs(t *testing.T) {
	agent := named("claude-code")
	src := `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/usr/bin/auditor hook claude-code --timeout 600 || exit 2", "timeout": 600}]}]}}`
	if ok, _ := agent.Installed([]byte(src)); ok {
		t.Fatal("another program's hook counted as ours")
	}
	if got, _ := agent.Uninstall([]byte(src), "codewhale-ls"); string(got) != src {
		t.Fatalf("uninstall removed another program's hook:\n%s", got)
	}
}

func TestMalformedSettingsNameLineAndByte(t *testing.T) {
	agent := named("claude-code")
	for _, tc := range []struct{ src, want string }{
		{"{\n  \"a\": 1\n  \"b\": 2\n}\n", "line 3, column 3 (byte 13): ',' or '}' expected"},
		{"{\n  \"a\": tru\n}", "line 2, column 8 (byte 9): a value was expected"},
		{"", "line 1, column 1 (byte 0): unexpected end of file"},
		{"{} {}", "line 1, column 4 (byte 3): unexpected text after the JSON value"},
		{"{\"a\": \"x\n\"}", "line 1, column 7 (byte 6): unterminated string"},
		{"{ /* open", "unterminated /* comment"},
	} {
		_, err := agent.Install([]byte(tc.src), true, "x hook claude-code")
		var syntax *SyntaxError
		if !errors.As(err, &syntax) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestInstallRefusesWrongShapes(t *testing.T) {
	agent := named("claude-code")
	for _, src := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`} {
		if _, err := agent.Install([]byte(src), true, "x"); err == nil {
			t.Errorf("%s: installed into a file of the wrong shape", src)
		}
	}
}

func TestDeepNestingIsRefusedNotOverflowed(t *testing.T) {
	src := `{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}"
	if _, err := parseJSONC([]byte(src)); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("got %v", err)
	}
}

func TestCommandQuotesTheBinary(t *testing.T) {
	if got := named("cursor").command("/opt/it's here/codewhale-ls", named("cursor").seconds()); got != `'/opt/it'\''s here/codewhale-ls' hook cursor --timeout 30 || exit 2` {
		t.Fatalf("got %s", got)
	}
	if got := named("gemini-cli").command("/usr/bin/codewhale-ls", named("gemini-cli").seconds()); got != "/usr/bin/codewhale-ls hook gemini-cli --timeout 60 || exit 2" {
		t.Fatalf("got %s", got)
	}
}

// Each agent's entry states the hook timeout in the agent's own field and
// unit, and passes the same number of seconds to the hook.
func TestEntriesStateTheAgentsTimeout(t *testing.T) {
	for name, want := range map[string]string{
		"claude-code": `{"matcher":"*","hooks":[{"type":"command","command":"/b/codewhale-ls hook claude-code --timeout 600 || exit 2","timeout":600}]}`,
		"codex":       `{"matcher":"*","hooks":[{"type":"command","command":"/b/codewhale-ls hook codex --timeout 600 || exit 2","timeout":600}]}`,
		"gemini-cli":  `{"matcher":"*","hooks":[{"type":"command","command":"/b/codewhale-ls hook gemini-cli --timeout 60 || exit 2","timeout":60000}]}`,
		"cursor":      `{"command":"/b/codewhale-ls hook cursor --timeout 30 || exit 2","timeout":30,"failClosed":true}`,
		"copilot-cli": `{"type":"command","bash":"/b/codewhale-ls hook copilot-cli --timeout 30","powershell":"& '/b/codewhale-ls' hook copilot-cli --timeout 30","timeoutSec":30}`,
	} {
		a := named(name)
		if got := fragment(nil, a.entry("/b/codewhale-ls", a.seconds())); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
	}
}

// A Windows path with a space and a quote is called in PowerShell (a
// quoted path alone is a string there) and quoted for sh in bash.
func TestCopilotPowerShellCallsTheBinary(t *testing.T) {
	a := named("copilot-cli")
	binary := `C:\Program Files\O'Brien\codewhale-ls.exe`
	var e struct{ Bash, PowerShell string }
	if err := json.Unmarshal([]byte(fragment(nil, a.entry(binary, a.seconds()))), &e); err != nil {
		t.Fatal(err)
	}
	if want := `& 'C:\Program Files\O''Brien\codewhale-ls.exe' hook copilot-cli --timeout 30`; e.PowerShell != want {
		t.Errorf("powershell:\ngot  %s\nwant %s", e.PowerShell, want)
	}
	if want := `'C:\Program Files\O'\''Brien\codewhale-ls.exe' hook copilot-cli --timeout 30`; e.Bash != want {
		t.Errorf("bash:\ngot  %s\nwant %s", e.Bash, want)
	}
	installed, err := a.Install(nil, false, binary)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.Installed(installed); !ok {
		t.Fatalf("not recognised:\n%s", installed)
	}
}

func TestDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\n"
	updated := "a\nb\nc\nd\ne\nX\nf\ng\nh\n"
	want := "--- f.json\n+++ f.json\n@@ -3,6 +3,7 @@\n c\n d\n e\n+X\n f\n g\n h\n"
	if got := Diff("f.json", []byte(old), []byte(updated)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := Diff("new.json", nil, []byte("{}\n")); got != "--- new.json\n+++ new.json\n@@ -0,0 +1,1 @@\n+{}\n" {
		t.Fatalf("got\n%s", got)
	}
	if Diff("x", []byte("same"), []byte("same")) != "" {
		t.Fatal("diff of equal texts")
	}
}

// A binary whose name is not codewhale-ls is ours when it is the file
// this program runs from; the same command naming another file is not.
func TestRenamedBinaryIsRecognised(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(t.TempDir(), "cwls")
	if err := os.Symlink(self, renamed); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "auditor")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	agent := named("claude-code")
	installed, err := agent.Install(nil, false, renamed)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := agent.Installed(installed); !ok {
		t.Fatalf("an install by a renamed binary is not recognised:\n%s", installed)
	}
	if again, _ := agent.Install(installed, true, renamed); string(again) != string(installed) {
		t.Fatalf("a second install added a duplicate:\n%s", again)
	}
	foreign, _ := agent.Install(nil, false, other)
	if ok, _ := agent.Installed(foreign); ok {
		t.Fatal("another program's command of the same shape counted as ours")
	}
}

// TestAChangedTimeoutIsStillOurs: a user who changes the hook's timeout,
// in the agent's field and in --timeout alike (docs/agents.md), still has
// our entry: check sees it, install adds no second one, uninstall removes
// it.
func TestAChangedTimeoutIsStillOurs(t *testing.T) {
	for name, src := range map[string]string{
		"claude-code": `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/b/codewhale-ls hook claude-code --timeout 120 || exit 2","timeout":120}]}]}}`,
		"gemini-cli":  `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"/b/codewhale-ls hook gemini-cli --timeout 30 || exit 2","timeout":30000}]}]}}`,
	} {
		a := named(name)
		if ok, err := a.Installed([]byte(src)); err != nil || !ok {
			t.Errorf("%s: installed %v, %v", name, ok, err)
		}
		if again, err := a.Install([]byte(src), true, "/b/codewhale-ls"); err != nil || string(again) != src {
			t.Errorf("%s: install again gave %s (%v)", name, again, err)
		}
		removed, err := a.Uninstall([]byte(src), "/b/codewhale-ls")
		if err != nil || strings.Contains(string(removed), "codewhale-ls") {
			t.Errorf("%s: uninstall left %s (%v)", name, removed, err)
		}
	}
	// A timeout that differs between the field and the flag is not ours:
	// the hook would not fit its prompt under the agent's wait.
	mismatch := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/b/codewhale-ls hook claude-code --timeout 600 || exit 2","timeout":60}]}]}}`
	if ok, _ := named("claude-code").Installed([]byte(mismatch)); ok {
		t.Error("an entry whose timeout and --timeout differ counts as ours")
	}
}

// named is the known agent called name.
func named(name string) Agent {
	a, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return a
}

// TestEveryAgentCanBeInstalled: every agent `hook` answers for says where
// its hooks are read and what our entry is, and install writes that entry
// into a missing file, which then holds it.
func TestEveryAgentCanBeInstalled(t *testing.T) {
	for _, a := range all() {
		s := a.Settings
		if s.Project == "" || s.User == "" || s.UserDir == "" || len(s.Events) == 0 || s.Entry == nil || s.Skeleton == "" {
			t.Errorf("%s: incomplete settings %+v", a.Name, s)
			continue
		}
		src, err := a.Install(nil, false, testBinary)
		if ok, _ := a.Installed(src); err != nil || !ok {
			t.Errorf("%s: installed into a new file %v:\n%s", a.Name, err, src)
		}
	}
}

// TestSettingsPathHonoursTheAgentsHome: the user-level file is where the
// agent reads it, in the directory its variable names when set: Claude's
// CLAUDE_CONFIG_DIR, Codex's CODEX_HOME and Copilot's COPILOT_HOME name
// the agent's directory, Gemini's GEMINI_CLI_HOME the home above .gemini.
func TestSettingsPathHonoursTheAgentsHome(t *testing.T) {
	for _, tc := range []struct {
		agent string
		env   config.MapEnv
		want  string
	}{
		{"claude-code", config.MapEnv{"HOME": "/h"}, "/h/.claude/settings.json"},
		{"claude-code", config.MapEnv{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"}, "/c/settings.json"},
		{"gemini-cli", config.MapEnv{"HOME": "/h"}, "/h/.gemini/settings.json"},
		{"gemini-cli", config.MapEnv{"HOME": "/h", "GEMINI_CLI_HOME": "/g"}, "/g/.gemini/settings.json"},
		{"codex", config.MapEnv{"HOME": "/h"}, "/h/.codex/hooks.json"},
		{"codex", config.MapEnv{"HOME": "/h", "CODEX_HOME": "/x/codex"}, "/x/codex/hooks.json"},
		{"copilot-cli", config.MapEnv{"HOME": "/h"}, "/h/.copilot/hooks/codewhale-ls.json"},
		{"copilot-cli", config.MapEnv{"HOME": "/h", "COPILOT_HOME": "/p"}, "/p/hooks/codewhale-ls.json"},
		{"cursor", config.MapEnv{"HOME": "/h", "CODEX_HOME": "/x"}, "/h/.cursor/hooks.json"},
	} {
		got, err := named(tc.agent).SettingsPath(User, "/ws", tc.env)
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("%s %v: got %q (%v), want %q", tc.agent, tc.env, got, err, tc.want)
		}
	}
	// A relative directory would be resolved against wherever the agent
	// starts: refused rather than guessed.
	if got, err := named("codex").SettingsPath(User, "/ws", config.MapEnv{"HOME": "/h", "CODEX_HOME": "rel"}); err == nil || !strings.Contains(err.Error(), "CODEX_HOME") {
		t.Errorf("relative CODEX_HOME: got %q, %v", got, err)
	}
	if got, _ := named("codex").SettingsPath(Project, "/ws", config.MapEnv{"CODEX_HOME": "/x"}); got != filepath.FromSlash("/ws/.codex/hooks.json") {
		t.Errorf("project: got %q", got)
	}
}

// TestNotesSayWhenAProjectEntryIsNotRead: every agent measured not to read
// a project entry in some sessions says so (docs/agents.md).
func TestNotesSayWhenAProjectEntryIsNotRead(t *testing.T) {
	for agent, want := range map[string]string{
		"claude-code": "subdirectory",
		"gemini-cli":  "untrusted folder",
		"copilot-cli": "untrusted folder",
		"codex":       "/hooks",
	} {
		if note := named(agent).Note(Project); !strings.Contains(note, want) {
			t.Errorf("%s: project note %q lacks %q", agent, note, want)
		}
	}
	if note := named("codex").Note(User); !strings.Contains(note, "codex exec") {
		t.Errorf("codex: user note %q", note)
	}
}
