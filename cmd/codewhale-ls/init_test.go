package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/agents/starter"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// `go test` builds this package's binary in a temporary directory, which
// hook install refuses (issue 24, point 7): the tests that are not about
// that stand in a lasting binary, and a codewhale-ls found on PATH.
func init() {
	executable = func() (string, error) { return "/opt/codewhale-ls/bin/codewhale-ls", nil }
	lookPath = func(string) (string, error) { return "/opt/codewhale-ls/bin/codewhale-ls", nil }
}

// freshHome is a home with no Codewhale file and a repository with a
// go.mod, a package.json with test and build scripts, and a Makefile.
func freshHome(t *testing.T) (home, repo string) {
	t.Helper()
	home = tempHome(t)
	for _, v := range []string{"CODEWHALE_HOME", "CODEWHALE_CONFIG_PATH", "DEEPSEEK_CONFIG_PATH"} {
		t.Setenv(v, "")
	}
	repo = t.TempDir()
	for name, content := range map[string]string{
		"go.mod":       "module x\n",
		"package.json": `{"scripts": {"test": "jest", "build": "tsc", "deploy": "x"}}`,
		"Makefile":     "build:\n\tgo build\ntest:\n\tgo test ./...\n",
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, repo
}

func TestInitWritesAStarterPolicyThatChecksClean(t *testing.T) {
	home, repo := freshHome(t)
	perms := filepath.Join(home, ".codewhale", "permissions.toml")
	code, out, errOut := runCLI(t, "", "init", "--workspace", repo, "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "+++ "+perms) || !strings.Contains(errOut, "go build, go test, go vet (go.mod)") || !strings.Contains(errOut, "npm test") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	fi, err := os.Stat(perms)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("permissions.toml: %v %v", fi, err)
	}
	src, _ := os.ReadFile(perms)
	file, problems := execpolicy.ParseFile(src)
	if !file.Accepted || len(problems) != 0 {
		t.Fatalf("the engine does not read it: %v\n%s", problems, src)
	}
	var allows, denies []string
	for _, r := range file.RuleValues() {
		if r.Action == execpolicy.Allow {
			if r.Workspace == nil || *r.Workspace != repo {
				t.Errorf("an allow not scoped to the repository: %s", r.Label())
			}
			allows = append(allows, *r.Command)
		} else {
			denies = append(denies, *r.Command)
		}
	}
	for _, want := range []string{"go test", "npm test", "npm run build", "make test"} {
		if !strings.Contains(strings.Join(allows, "|"), want) {
			t.Errorf("no allow for %s: %q", want, allows)
		}
	}
	if strings.Contains(strings.Join(allows, "|"), "deploy") {
		t.Errorf("a deploy script was allowed: %q", allows)
	}
	if !strings.Contains(strings.Join(denies, "|"), "git push --force") || !strings.Contains(strings.Join(denies, "|"), "npm publish") {
		t.Errorf("denies %q", denies)
	}
	for _, rel := range release.Implemented {
		if code, out, errOut := runCLI(t, "", "check", "--workspace", repo, "--fail-level", "warning", "--codewhale-version", rel.Version); code != 0 {
			t.Errorf("check at %s: exit %d\n%s%s", rel.Version, code, out, errOut)
		}
	}
	// The hook now allows the build and still denies a force push,
	// with no editor (exit 2 is Codex's block).
	t.Chdir(repo) // where Codex runs its hooks: the session's directory
	for cmd, blocked := range map[string]bool{"npm test": false, "go test ./...": false, "make test": false, "git push --force origin main": true, "npm publish": true} {
		event := `{"session_id":"s","turn_id":"t","cwd":"` + repo + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"c1"}`
		code, out, errOut := runCLI(t, event, "hook", "codex", "--codewhale-version", release.Newest().Version)
		if (code == 2) != blocked {
			t.Errorf("codex %q: exit %d, %s%s", cmd, code, out, errOut)
		}
	}
}

func TestInitTwiceAddsNothingAndKeepsTheUsersRules(t *testing.T) {
	home, repo := freshHome(t)
	dotfiles := filepath.Join(home, "dotfiles", "permissions.toml")
	mine := "# mine\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git diff\"\naction = \"allow\"\n"
	if err := os.MkdirAll(filepath.Dir(dotfiles), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dotfiles, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	perms := filepath.Join(home, ".codewhale", "permissions.toml")
	if err := os.MkdirAll(filepath.Dir(perms), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, perms); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "", "init", "--workspace", repo, "--yes"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(perms); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	first, _ := os.ReadFile(dotfiles)
	if !strings.HasPrefix(string(first), mine+"\n"+starter.Marker) {
		t.Fatalf("not appended below the user's rules and a marked comment:\n%s", first)
	}
	code, out, errOut := runCLI(t, "", "init", "--workspace", repo, "--yes")
	if code != 0 || out != "" || !strings.Contains(errOut, "nothing to add") {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, errOut)
	}
	if again, _ := os.ReadFile(dotfiles); !bytes.Equal(again, first) {
		t.Fatalf("second run changed the file")
	}
}

func TestInitWithoutTerminalOnlyShowsTheDiff(t *testing.T) {
	home, repo := freshHome(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var out, errb bytes.Buffer
	code := initCommand([]string{"--workspace", repo}, null, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "+[[rules]]") || !strings.Contains(errb.String(), "pass --yes") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".codewhale", "permissions.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written without confirmation: %v", err)
	}
	// On a terminal, a yes writes it.
	out.Reset()
	errb.Reset()
	if code := runInit([]string{"--workspace", repo}, true, strings.NewReader("y\n"), &out, &errb); code != 0 {
		t.Fatalf("confirmed: exit %d %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".codewhale", "permissions.toml")); err != nil {
		t.Fatal(err)
	}
}

func TestInitRefusesAFileItCannotExtend(t *testing.T) {
	home, repo := freshHome(t)
	perms := filepath.Join(home, ".codewhale", "permissions.toml")
	broken := "[[rules]]\ntool = \"exec_shell\"\ndecision = \"allow\"\n"
	if err := os.MkdirAll(filepath.Dir(perms), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(perms, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "", "init", "--workspace", repo, "--yes")
	if code != 1 || !strings.Contains(errOut, "does not load") || !strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(perms); string(got) != broken {
		t.Fatalf("changed:\n%s", got)
	}
}
