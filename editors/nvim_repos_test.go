//go:build unix

package editors_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
)

// TestNeovimServesRepositories is issue 25's first point for the Neovim
// plugin, in both Neovims, started as a person starts it (nvim -u their
// init.lua, on a source file of a repository with no .codewhale/) in
// tmux: from VimEnter the repository of the working directory is served
// (its approval socket exists, and a `codewhale-ls hook` run there puts
// its card on the screen), so is the repository of every :cd, :tcd and
// :lcd and of a buffer of another work tree, never the user's home; one
// server per repository, which a policy file and a second buffer of the
// repository reuse; the servers end with Neovim; serve_repositories =
// false serves only the workspaces of policy files.
func TestNeovimServesRepositories(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		w := newNvimWorld(t, nv)
		w.shareWithHost(t)
		g := w.guest // every path below is the editor's, and this machine's too
		repo := func(name string) string {
			dir := g(filepath.Join(w.dir, name))
			w.write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
			return dir
		}
		r1, r2, r3, r4, r5 := repo("r1"), repo("r2"), repo("r3"), repo("r4"), repo("r5")
		ws := g(filepath.Join(w.dir, "ws")) // a .git and a .codewhale/ (newNvimWorld)
		home := g(filepath.Join(w.dir, "home"))
		w.write(t, filepath.Join(r1, "src", "main.rs"), "fn main() {\n}\n")
		w.write(t, filepath.Join(r3, "lib", "a.rs"), "pub fn a() {}\n")
		runtime := nvimRuntimeDir(t, w)
		env := append(w.env("repos"), "XDG_RUNTIME_DIR="+runtime)

		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		tm := startUserNeovim(t, ctx, nv, env, r1, 100, 30, "src/main.rs")
		waitNvimServes(t, runtime, r1)

		// An agent's hook in the repository reaches this Neovim: its
		// card is on the screen, and <Esc> is a deny in the agent's form.
		// Without the editor Claude Code would be told "ask" (its own
		// prompt, permission mode "default").
		hook := exec.CommandContext(ctx, filepath.Join(w.dir, "bin", "codewhale-ls"), "hook", "claude-code", "--timeout", "60")
		hook.Dir = r1
		hook.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_RUNTIME_DIR=" + runtime, "CODEWHALE_HOME=" + filepath.Join(home, ".codewhale")}
		event, _ := json.Marshal(map[string]any{
			"session_id": "s1", "cwd": r1, "permission_mode": "default", "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "touch edited.txt", "description": "run"},
		})
		hook.Stdin = strings.NewReader(string(event))
		var out strings.Builder
		hook.Stdout = &out
		hook.WaitDelay = 5 * time.Second
		if err := hook.Start(); err != nil {
			t.Fatal(err)
		}
		tm.waitScreen("Codewhale approval", "touch edited.txt", "claude-code", "ready: type a code")
		tm.typeText("\x1b")
		if err := hook.Wait(); err != nil {
			t.Fatalf("the hook: %v\n%s", err, out.String())
		}
		var verdict struct {
			HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
		}
		if err := json.Unmarshal([]byte(out.String()), &verdict); err != nil || verdict.HookSpecificOutput.PermissionDecision != "deny" {
			t.Errorf("<Esc> on the card: the hook answered %q (%v), want a deny", out.String(), err)
		}

		// The user's home is never a workspace; every directory Neovim
		// is taken to, by each kind of :cd, is.
		tm.typeText(":cd ~\n")
		tm.typeText(":cd " + r2 + "\n")
		waitNvimServes(t, runtime, r2)
		tm.typeText(":tcd " + r4 + "\n")
		waitNvimServes(t, runtime, r4)
		tm.typeText(":lcd " + r5 + "\n")
		waitNvimServes(t, runtime, r5)
		// A buffer of another work tree.
		tm.typeText(":e " + filepath.Join(r3, "lib", "a.rs") + "\n")
		waitNvimServes(t, runtime, r3)
		// A policy file, then another file, of a repository: one server.
		policy := filepath.Join(ws, ".codewhale", "config.toml")
		tm.typeText(":e " + policy + "\n")
		waitNvimServes(t, runtime, ws)
		tm.typeText(":e " + filepath.Join(ws, "Cargo.toml") + "\n")
		tm.typeText(":e " + filepath.Join(r1, "src", "main.rs") + "\n")

		clients := userNeovimState(t, tm)
		var roots []string
		for _, c := range clients {
			roots = append(roots, c.Root)
			if c.Root == ws && !slices.Contains(c.Files, policy) {
				t.Errorf("the policy file is not attached to its repository's client: %+v", clients)
			}
			if c.Root != ws && len(c.Files) > 0 {
				t.Errorf("a repository's client has files attached (only policy files are): %+v", c)
			}
		}
		slices.Sort(roots)
		want := []string{r1, r2, r3, r4, r5, ws}
		slices.Sort(want)
		if !slices.Equal(roots, want) {
			t.Errorf("clients for %q, want one for each of %q", roots, want)
		}

		// The servers end with Neovim, their sockets with them.
		tm.typeText(":qa!\n")
		for _, dir := range want {
			waitNvimStopsServing(t, runtime, dir)
		}

		// serve_repositories = false: the policy file's workspace only.
		off := startUserNeovim(t, ctx, nv, append(env, "CWLS_SERVE_REPOSITORIES=0"), r1, 100, 30, "src/main.rs")
		off.typeText(":e " + filepath.Join(home, ".codewhale", "permissions.toml") + "\n")
		waitNvimServes(t, runtime, filepath.Join(home, ".codewhale"))
		off.typeText(":cd " + r2 + "\n")
		clients = userNeovimState(t, off)
		if len(clients) != 1 || clients[0].Root != filepath.Join(home, ".codewhale") {
			t.Errorf("serve_repositories = false: clients %+v, want only the Codewhale home's", clients)
		}
		for _, dir := range []string{r1, r2} {
			if _, err := os.Stat(nvimApprovalSocket(t, runtime, dir)); err == nil {
				t.Errorf("serve_repositories = false, yet %s is served", dir)
			}
		}
	})
}

// shareWithHost makes the world of a Neovim in a chroot reachable on this
// machine at the paths the editor sees (a bind mount at its guest path):
// a hook run here names the same workspace, and so finds the same
// approval socket, as the editor's server there.
func (w *nvimWorld) shareWithHost(t *testing.T) {
	t.Helper()
	if w.nv.chroot != "" {
		nvimBindMount(t, w.dir, w.guest(w.dir))
	}
}

// nvimRuntimeDir is an XDG_RUNTIME_DIR the editor and this machine
// share whose sockets' paths fit a socket address (a test's temporary
// directory is too long for one).
func nvimRuntimeDir(t *testing.T, w *nvimWorld) string {
	t.Helper()
	if w.nv.chroot != "" {
		dir := w.guest(filepath.Join(w.dir, "run")) // /tmp/codewhale-nvim-N/run
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "cwrun")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// nvimBindMount mounts from at to (a directory it creates, which must not
// exist) until the test ends.
func nvimBindMount(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(to, 0o700); err != nil {
		t.Fatalf("the mount point: %v", err)
	}
	if out, err := exec.Command("mount", "--bind", from, to).CombinedOutput(); err != nil {
		os.Remove(to)
		t.Fatalf("mount --bind %s %s: %v\n%s", from, to, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", to).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", to, err, out)
			return
		}
		os.Remove(to)
	})
}

// startUserNeovim starts nv in a tmux pane as a person does, in dir on
// files, with the world's scripts/user_init.lua as their init.lua
// ($CWLS_PLUGIN, $CWLS_BIN and $CWLS_DIR come from env).
func startUserNeovim(t *testing.T, ctx context.Context, nv neovim, env []string, dir string, cols, rows int, files ...string) *tmuxNeovim {
	t.Helper()
	var cwlsDir string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CWLS_DIR="); ok {
			cwlsDir = v
		}
	}
	host := cwlsDir
	if nv.chroot != "" {
		host = filepath.Join(nv.chroot, cwlsDir)
	}
	command := append([]string{"/usr/bin/env", "-C", dir, nv.path, "-i", "NONE", "-u", filepath.Join(cwlsDir, "scripts", "user_init.lua")}, files...)
	return startTmuxPane(t, ctx, host, cols, rows, env, nv.chroot, command...)
}

type nvimClient struct {
	ID    int
	Root  string
	Files []string
}

// userNeovimState runs user_init.lua's :CwState and returns the clients
// it wrote.
func userNeovimState(t *testing.T, tm *tmuxNeovim) []nvimClient {
	t.Helper()
	path := filepath.Join(tm.dir, "state.json")
	os.Remove(path)
	tm.typeText(":CwState\n")
	give := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var s struct{ Clients []nvimClient }
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("state.json: %v\n%s", err, b)
			}
			return s.Clients
		}
		if time.Now().After(give) {
			t.Fatalf(":CwState wrote nothing:\n%s", tm.capture(false))
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// nvimApprovalSocket is the approval socket of workspace under the runtime
// directory runtime (approvals/remote.SocketPath).
func nvimApprovalSocket(t *testing.T, runtime, workspace string) string {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	p, err := remote.SocketPath(workspace)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitNvimServes waits for the approval socket of workspace; a minute is
// the bound of a hang, far above a server's start.
func waitNvimServes(t *testing.T, runtime, workspace string) {
	t.Helper()
	p := nvimApprovalSocket(t, runtime, workspace)
	give := time.Now().Add(time.Minute)
	for {
		info, err := os.Stat(p)
		if err == nil && info.Mode().Type() == fs.ModeSocket {
			return
		}
		if time.Now().After(give) {
			t.Fatalf("%s is not served: no socket %s (%v)", workspace, p, err)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitNvimStopsServing waits for the approval socket of workspace to go.
func waitNvimStopsServing(t *testing.T, runtime, workspace string) {
	t.Helper()
	p := nvimApprovalSocket(t, runtime, workspace)
	give := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return
		}
		if time.Now().After(give) {
			t.Fatalf("%s is still served after Neovim quit: %s", workspace, p)
		}
		time.Sleep(30 * time.Millisecond)
	}
}
