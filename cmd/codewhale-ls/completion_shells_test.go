package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/agents"
)

// e2eShell is the path of a shell the completion tests run in, which
// only CODEWHALE_E2E=1 runs (.ci/setup-nvim.sh installs zsh and fish),
// and under it a missing shell is a failure.
func e2eShell(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("CODEWHALE_E2E") != "1" {
		t.Skipf("runs the real %s only with CODEWHALE_E2E=1 (.ci/run sets it)", name)
	}
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("CODEWHALE_E2E=1 but %s is not installed (apt-get install %s; .ci/setup-nvim.sh does)", name, name)
	}
	return path
}

// The fish completion, asked through fish's own complete -C, which
// completes a command line as Tab does.
func TestCompletionInFish(t *testing.T) {
	fish := e2eShell(t, "fish")
	script := filepath.Join(t.TempDir(), "codewhale-ls.fish")
	if err := os.WriteFile(script, []byte(generated(t, "completion", "fish")), 0o600); err != nil {
		t.Fatal(err)
	}
	agentNames := agents.Names()
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"codewhale-ls ch", []string{"check"}},
		{"codewhale-ls check --format ", sorted("text", "json", "sarif", "github")},
		{"codewhale-ls check --fail-level w", []string{"warning"}},
		{"codewhale-ls hook ", sorted(append([]string{"install", "uninstall"}, agentNames...)...)},
		{"codewhale-ls hook install ", sorted(agentNames...)},
		{"codewhale-ls hook claude-code ", nil},
		{"codewhale-ls log --decision a", sorted("allow", "ask")},
		{"codewhale-ls schema ", sorted("config", "permissions", "hooks", "constitution")},
		{"codewhale-ls completion ", sorted("bash", "zsh", "fish")},
		{"codewhale-ls explain --mode plan exec_shell_w", []string{"exec_shell_wait"}},
		{"codewhale-ls version --", []string{"--json"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, tc.line).Output()
		cancel()
		if err != nil {
			t.Fatalf("fish completing %q: %v", tc.line, err)
		}
		var got []string
		for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
			if candidate, _, _ := strings.Cut(line, "\t"); candidate != "" {
				got = append(got, candidate)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q completes to %q, want %q", tc.line, got, tc.want)
		}
	}
}

// The zsh completion, in an interactive zsh in tmux as a person presses
// Tab: compinit loads it from $fpath as the #compdef file _codewhale-ls.
func TestCompletionInZsh(t *testing.T) {
	zsh := e2eShell(t, "zsh")
	tmux := e2eShell(t, "tmux")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "_codewhale-ls"), []byte(generated(t, "completion", "zsh")), 0o600); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "tmux.sock")
	tm := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, tmux, append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tm("new-session", "-d", "-x", "160", "-y", "40", "--", "env", "-i", "HOME="+dir, "TERM=xterm", "PATH="+os.Getenv("PATH"), zsh, "-f")
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", socket, "kill-server").Run() })
	// screenShows waits until the pane shows every one of want.
	screenShows := func(what string, want ...string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			screen := tm("capture-pane", "-p")
			if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(screen, w) }) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the screen does not show %q:\n%s", what, want, screen)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	tm("send-keys", "-l", "fpath=("+dir+" $fpath); autoload -Uz compinit; compinit -u -d "+dir+"/zcompdump; print ready${:-.}\n")
	screenShows("compinit", "ready.")
	agentNames := agents.Names()
	for _, tc := range []struct {
		line string
		want []string // on the screen after Tab: the line completed (tmux drops the space after it), or the candidates listed
	}{
		{"codewhale-ls ch", []string{"codewhale-ls check"}},
		{"codewhale-ls check --format ", []string{"github", "json", "sarif", "text"}},
		{"codewhale-ls check --fail-level w", []string{"codewhale-ls check --fail-level warning"}},
		{"codewhale-ls check --fo", []string{"codewhale-ls check --format"}},
		{"codewhale-ls hook ", append([]string{"install", "uninstall"}, agentNames...)},
		{"codewhale-ls hook install cl", []string{"codewhale-ls hook install claude-code"}},
		{"codewhale-ls log --decision a", []string{"allow", "ask"}},
		{"codewhale-ls schema per", []string{"codewhale-ls schema permissions"}},
		{"codewhale-ls completion f", []string{"codewhale-ls completion fish"}},
		{"codewhale-ls explain --mode plan exec_shell_wa", []string{"exec_shell_wait"}},
	} {
		tm("send-keys", "C-u", "C-l")
		tm("send-keys", "-l", tc.line)
		tm("send-keys", "Tab")
		screenShows(tc.line, tc.want...)
	}
}
