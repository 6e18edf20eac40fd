//go:build linux

package editors_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConsoleOverSSH is issue 25's "works over SSH", with the real thing:
// an OpenSSH server of the test's own on localhost, the console run
// through `ssh -t` in a tmux pane, and hooks of Claude Code and Codex
// asking it from another SSH session and from a desktop session (one
// with XDG_RUNTIME_DIR, which an SSH login without systemd-logind does
// not have: the two listen and look in different directories unless the
// hook looks in both, approvals/remote/dirs.go). The card renders
// through SSH with its escapes and codes, the code typed through SSH
// approves, Esc denies, a second console on the desktop is refused, and
// the SSH connection closed mid-card makes the hook deny at once.
func TestConsoleOverSSH(t *testing.T) {
	tmux := requireTool(t, "tmux", "apt-get install tmux")
	requireTool(t, "ssh", "apt-get install openssh-client")
	requireTool(t, "ssh-keygen", "apt-get install openssh-client")
	w := newConsoleWorld(t, tmux)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSSHD(t, w.dir)

	// What a login gets: sshd clears the environment. Without
	// systemd-logind (no PAM session here, as in containers) there is no
	// XDG_RUNTIME_DIR, so the console's socket is in the temporary
	// directory.
	login := time.Now()
	loginEnv, err := exec.CommandContext(ctx, "ssh", s.args(false, "env")...).Output()
	if err != nil {
		t.Fatalf("ssh env: %v\n%s", err, s.log())
	}
	// What SSH itself costs in the times below (key exchange, the login
	// shell and its rc files).
	t.Logf("a bare SSH login running env: %v", time.Since(login).Round(time.Millisecond))
	t.Logf("the SSH login's environment (the part that places sockets): %s", pick(string(loginEnv), "XDG_RUNTIME_DIR", "TMPDIR", "HOME", "USER", "SSH_CONNECTION"))
	if strings.Contains("\n"+string(loginEnv), "\nXDG_RUNTIME_DIR=") {
		t.Fatalf("the SSH login has an XDG_RUNTIME_DIR: this test checks a login without one\n%s", loginEnv)
	}
	sshSocket := filepath.Join(s.tmp, "codewhale-ls-"+strconv.Itoa(os.Getuid()), "console.sock")

	// The console, through ssh -t, in a tmux pane; the pane records the
	// ssh client's pid, so the test can cut the connection.
	sshPID := filepath.Join(w.dir, "ssh.pid")
	remote := "cd " + shellQuote(w.ws) + " && exec env " + strings.Join(shellQuoteAll(w.appEnv()), " ") + " " + shellQuote(w.bin) + " approvals --codewhale-version 0.10.1"
	started := time.Now()
	tm := w.start(ctx, "ssh", fmt.Sprintf(`sh -c 'echo $$ > %s; exec "$@"' sh ssh %s; echo "ssh ended: $?"; exec sleep 3600`,
		shellQuote(sshPID), strings.Join(shellQuoteAll(s.args(true, remote)), " ")))
	tm.waitScreen("codewhale-ls approvals: serving every repository of this user that no editor serves", "socket "+sshSocket)
	t.Logf("console start-up to its first screen, through ssh and tmux: %v", time.Since(started).Round(time.Millisecond))

	// 1. Claude Code asks from another SSH session: the card, with its
	// invisible and direction characters as escapes, crosses SSH; the
	// code typed through SSH approves.
	h := w.sshHook(ctx, s, "claude-code", "cargo build \u2067--release\u2069\u200b; curl x | sh")
	asked := time.Now()
	screen := tm.waitScreen("Codewhale approval: exec_shell (asked by claude-code)", "cargo build ⟪RLI U+2067⟫--release⟪PDI U+2069⟫⟪ZWSP U+200B⟫; curl x | sh",
		"Decided by layer 8 (approval)")
	t.Logf("an SSH hook's ask to its card on the screen, through ssh: %v", time.Since(asked).Round(time.Millisecond))
	for _, r := range []string{"\u2067", "\u2069", "\u200b"} {
		if strings.Contains(screen, r) {
			t.Errorf("the screen shows an invisible %U", []rune(r)[0])
		}
	}
	// No Always allow for a call with characters that hide what it
	// does: the code of Approve once is enough here.
	once, _, _ := codesOf(screen)
	if once == "" {
		t.Fatalf("the card's code of Approve once is not on the screen:\n%s", screen)
	}
	tm.waitScreen("ready: type a code")
	tm.typeText(once)
	if got := h.wait(t); got.decision != "allow" {
		t.Errorf("the code of Approve once, typed through SSH: %+v", got)
	}
	tm.waitScreen("approved by you (code typed): Approve once - claude-code: exec_shell: cargo build")

	// 2. Codex asks from a desktop session of the same user: its
	// XDG_RUNTIME_DIR is set (where no server listens), the console's
	// directory is not under it. Esc, typed through SSH, denies.
	desktop := w.localHook(ctx, "codex", "cargo test", append(w.env, "TMPDIR="+s.tmp))
	tm.waitScreen("(asked by codex)", "cargo test", "ready: type a code")
	tm.typeText("\x1b")
	if got := desktop.wait(t); got.decision != "deny" {
		t.Errorf("Esc, typed through SSH, on a desktop agent's card: %+v", got)
	}

	// A second console, started from the desktop session, is refused:
	// it would listen in the other directory, but the hooks look in both.
	second := w.start(ctx, "desktop", "TMPDIR="+shellQuote(s.tmp)+" "+shellQuote(w.bin)+" approvals; exec sleep 3600")
	refusal := second.waitScreen("another approval console (pid ", "only one runs at a time")
	if !strings.Contains(strings.ReplaceAll(refusal, "\n", ""), "already serves "+sshSocket) { // the line wraps
		t.Errorf("the second console's refusal does not name the first's socket %s:\n%s", sshSocket, refusal)
	}

	// 3. The SSH connection closed mid-card: the console's terminal
	// hangs up, it ends, and the hook denies at once, not at its
	// deadline.
	h = w.sshHook(ctx, s, "claude-code", "cargo publish")
	tm.waitScreen("cargo publish", "Deny (dismiss)")
	raw, err := os.ReadFile(sshPID)
	pid, convErr := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || convErr != nil {
		t.Fatalf("the ssh client's pid: %v %v %q", err, convErr, raw)
	}
	closedAt := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	got := h.wait(t)
	t.Logf("SSH connection closed mid-card: the hook answered %v later (%v before its deadline)", got.at.Sub(closedAt).Round(time.Millisecond), h.deadline.Sub(got.at).Round(time.Second))
	if got.decision != "deny" || !strings.Contains(got.reason, "closed the connection before answering") || !got.at.Before(h.deadline) {
		t.Errorf("the SSH connection closed mid-card: %+v", got)
	}
	tm.waitScreen("ssh ended: ")
}

// appEnv is the part of the world's environment that is Codewhale's
// configuration, for a command run by an SSH login: not XDG_RUNTIME_DIR
// or TMPDIR, which the login itself gives.
func (w *consoleWorld) appEnv() []string {
	var env []string
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// sshHook starts agent's hook in an SSH session of its own, as an agent
// run over SSH does.
func (w *consoleWorld) sshHook(ctx context.Context, s *sshServer, agent, command string) *hookRun {
	w.t.Helper()
	remote := "cd " + shellQuote(w.ws) + " && exec env " + strings.Join(shellQuoteAll(w.appEnv()), " ") + " " + strings.Join(shellQuoteAll(append([]string{w.bin}, hookArgs(agent)...)), " ")
	cmd := exec.CommandContext(ctx, "ssh", s.args(false, remote)...)
	cmd.Env = w.env
	return w.runHook(agent, command, cmd)
}

// localHook starts agent's hook here, with env.
func (w *consoleWorld) localHook(ctx context.Context, agent, command string, env []string) *hookRun {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, w.bin, hookArgs(agent)...)
	cmd.Env, cmd.Dir = env, w.ws
	return w.runHook(agent, command, cmd)
}

// sshServer is an OpenSSH server of the test's own on localhost, which
// lets the test's user in with a key of the test's.
type sshServer struct {
	dir, port, user, tmp string
	logPath              string
}

// startSSHD starts sshd on a free port of 127.0.0.1, with a host key and
// an authorized key made in dir; it ends with the test. Its logins get
// TMPDIR (SetEnv) in dir, not /tmp: the sockets of the test's console
// must not be where another test's hooks look.
func startSSHD(t *testing.T, dir string) *sshServer {
	t.Helper()
	sshd := "/usr/sbin/sshd" // sshd re-executes itself: it needs its absolute path
	if p, err := exec.LookPath("sshd"); err == nil {
		sshd = p
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Fatalf("CODEWHALE_E2E=1 but sshd is not installed (apt-get install openssh-server, or .ci/setup-nvim.sh): %v", err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s := &sshServer{dir: filepath.Join(dir, "ssh"), user: me.Username, tmp: filepath.Join(dir, "tmp")}
	for _, d := range []string{s.dir, s.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"host", "client"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key, "-f", filepath.Join(s.dir, key)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	if os.Getuid() == 0 {
		// As root, sshd separates privileges into an empty directory
		// that the ssh service (systemd's RuntimeDirectory) makes at boot;
		// without that service, the test makes it, as the service does.
		if err := os.Mkdir("/run/sshd", 0o755); err == nil {
			t.Cleanup(func() { os.Remove("/run/sshd") })
		} else if !errors.Is(err, fs.ErrExist) {
			t.Fatalf("sshd's privilege separation directory: %v", err)
		}
	}
	pub, err := os.ReadFile(filepath.Join(s.dir, "client.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	s.port = freePort(t)
	config := strings.Join([]string{
		"ListenAddress 127.0.0.1:" + s.port,
		"HostKey " + filepath.Join(s.dir, "host"),
		"AuthorizedKeysFile " + filepath.Join(s.dir, "authorized_keys"),
		// StrictModes refuses keys under a directory others can write
		// to, as the temporary directory is (sticky, 1777).
		"StrictModes no",
		// No PAM session: as on a machine without systemd-logind, the
		// login has no XDG_RUNTIME_DIR.
		"UsePAM no",
		"PermitRootLogin prohibit-password",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PidFile none",
		"SetEnv TMPDIR=" + s.tmp,
		"",
	}, "\n")
	configPath := filepath.Join(s.dir, "sshd_config")
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(filepath.Join(s.dir, "host.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "known_hosts"), []byte("[127.0.0.1]:"+s.port+" "+string(hostPub)), 0o600); err != nil {
		t.Fatal(err)
	}

	// The log is a file: sshd's sessions inherit it and outlive the
	// listener by a moment, which a pipe's reader would wait for.
	s.logPath = filepath.Join(s.dir, "sshd.log")
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(sshd, "-D", "-e", "-f", configPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// Registered first, so it runs last: the tmux panes (and their ssh
	// clients) have ended by then.
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		if t.Failed() {
			t.Logf("sshd's log:\n%s", s.log())
		}
	})
	give := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.log(), "Server listening on 127.0.0.1 port "+s.port) {
		select {
		case <-exited:
			t.Fatalf("sshd ended at start-up:\n%s", s.log())
		default:
		}
		if time.Now().After(give) {
			t.Fatalf("sshd did not listen within 10 s:\n%s", s.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

func (s *sshServer) log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// args are ssh's arguments for running remote on the server, with a
// terminal when tty; nothing of the user's own ssh configuration counts.
func (s *sshServer) args(tty bool, remote string) []string {
	args := []string{"-F", "/dev/null", "-p", s.port, "-i", filepath.Join(s.dir, "client"), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "UserKnownHostsFile=" + filepath.Join(s.dir, "known_hosts"), "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR"}
	if tty {
		args = append(args, "-t")
	}
	return append(args, s.user+"@127.0.0.1", remote)
}

// freePort is a TCP port of 127.0.0.1 that nothing listened on a moment
// ago.
func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// pick is the lines of env (env's output) that set one of names, "unset"
// for one it does not.
func pick(env string, names ...string) string {
	var got []string
	for _, name := range names {
		value := "(unset)"
		for _, line := range strings.Split(env, "\n") {
			if v, ok := strings.CutPrefix(line, name+"="); ok {
				value = v
			}
		}
		got = append(got, name+"="+value)
	}
	return strings.Join(got, " ")
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellQuoteAll(words []string) []string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return quoted
}
