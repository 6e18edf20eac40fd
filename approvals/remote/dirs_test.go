package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

func TestCandidateDirsCoverTheOtherSessionsDirectory(t *testing.T) {
	for _, c := range []struct {
		name   string
		own    string
		hasXDG bool
		tmp    string
		goos   string
		want   []string
	}{
		{"a desktop session's hook also looks where an SSH login's server listens", "/run/user/1000/codewhale-ls", true, "/tmp", "linux",
			[]string{"/run/user/1000/codewhale-ls", "/tmp/codewhale-ls-1000"}},
		{"an SSH login's hook also looks in systemd-logind's runtime directory", "/tmp/codewhale-ls-1000", false, "/tmp", "linux",
			[]string{"/tmp/codewhale-ls-1000", "/run/user/1000/codewhale-ls"}},
		{"a runtime directory the hook was given is kept, not swapped for /run/user", "/home/u/run/codewhale-ls", true, "/tmp", "linux",
			[]string{"/home/u/run/codewhale-ls", "/tmp/codewhale-ls-1000"}},
		{"no /run/user where systemd-logind does not exist", "/var/folders/x/T/codewhale-ls-1000", false, "/var/folders/x/T", "darwin",
			[]string{"/var/folders/x/T/codewhale-ls-1000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := candidateDirs(c.own, c.hasXDG, c.tmp, 1000, c.goos); !reflect.DeepEqual(got, c.want) {
				t.Errorf("candidateDirs(%q, %v, %q) = %q, want %q", c.own, c.hasXDG, c.tmp, got, c.want)
			}
		})
	}
}

// withoutRuntimeDir makes the process's environment an SSH login's
// without systemd-logind: no XDG_RUNTIME_DIR, TMPDIR at tmp.
func withoutRuntimeDir(t *testing.T, tmp string) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	os.Unsetenv("XDG_RUNTIME_DIR")
	t.Setenv("TMPDIR", tmp)
}

// An agent started from a desktop session (XDG_RUNTIME_DIR set) reaches
// the console and the editor started over SSH (none set), and the
// editor before the console wherever each listens.
func TestAHookFindsServersOfASessionWithoutRuntimeDir(t *testing.T) {
	dir := runtimeHere(t)
	ws := t.TempDir()
	withoutRuntimeDir(t, dir)
	console := listenConsole(t, servesAll, decides(gate.Allow, "the console's answer"))
	if want := filepath.Join(dir, "codewhale-ls-"+strconv.Itoa(os.Getuid()), consoleSocket); console.Path() != want {
		t.Fatalf("without XDG_RUNTIME_DIR the console listens on %s, want %s", console.Path(), want)
	}

	desktop := filepath.Join(dir, "run")
	if err := os.Mkdir(desktop, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", desktop)
	ask := func() (gate.Decision, error) {
		return Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	}
	d, err := ask()
	if err != nil || d.Reason != "the console's answer" {
		t.Fatalf("a desktop hook and a console over SSH: %+v %v", d, err)
	}

	withoutRuntimeDir(t, dir)
	listen(t, ws, decides(gate.Deny, "the editor's answer"))
	t.Setenv("XDG_RUNTIME_DIR", desktop)
	d, err = ask()
	if err != nil || d.Reason != "the editor's answer" {
		t.Fatalf("a desktop hook, an editor and a console over SSH: %+v %v, want the editor's", d, err)
	}
}

// The hook's own directory comes first: an editor there answers, not
// one of the same repository in the other session's directory (Neovim
// open on it on the desktop and over SSH).
func TestTheHooksOwnDirectoryComesFirst(t *testing.T) {
	dir := runtimeHere(t)
	ws := t.TempDir()
	withoutRuntimeDir(t, dir)
	listen(t, ws, decides(gate.Allow, "the SSH editor's answer"))
	t.Setenv("XDG_RUNTIME_DIR", dir)
	listen(t, ws, decides(gate.Deny, "the desktop editor's answer"))
	d, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Reason != "the desktop editor's answer" {
		t.Fatalf("%+v %v, want the editor of the hook's own directory", d, err)
	}
}

// A candidate directory that is not ours alone is passed over, and the
// deny says why when no other directory has a server; a safe one after
// it still answers.
func TestAnUnsafeCandidateIsPassedOverSayingWhy(t *testing.T) {
	dir := runtimeHere(t)
	ws := t.TempDir()
	unsafe := filepath.Join(dir, "codewhale-ls") // the hook's own, first
	if err := os.Mkdir(unsafe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(unsafe, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(unsafe, consoleSocket), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ask := func() (gate.Decision, error) {
		return Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	}
	_, err := ask()
	if !errors.Is(err, ErrNoEditor) || !strings.Contains(err.Error(), "approval socket directory "+unsafe+" has mode 0755; only 0700 is safe, refusing it") {
		t.Fatalf("a console socket in a directory others can enter: %v", err)
	}

	withoutRuntimeDir(t, dir)
	listenConsole(t, servesAll, decides(gate.Allow, "the console's answer"))
	t.Setenv("XDG_RUNTIME_DIR", dir)
	d, err := ask()
	if err != nil || d.Reason != "the console's answer" {
		t.Fatalf("a console in the directory after an unsafe one: %+v %v", d, err)
	}
}

// A console started from another session, in the other directory, is a
// second console all the same: hooks of either session would find the
// first.
func TestAConsoleOfAnotherSessionIsRefusedAsASecond(t *testing.T) {
	dir := runtimeHere(t)
	withoutRuntimeDir(t, dir)
	first := listenConsole(t, servesAll, decides(gate.Deny, "first"))
	t.Setenv("XDG_RUNTIME_DIR", dir)
	_, err := ListenConsole(servesAll, decides(gate.Deny, "second"))
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "another approval console (pid "+strconv.Itoa(os.Getpid())+") already serves "+first.Path()) {
		t.Fatalf("a console in XDG_RUNTIME_DIR beside one in the temporary directory: %v", err)
	}
	// Once the first ended, its stale socket does not count.
	first.Close()
	listenConsole(t, servesAll, decides(gate.Deny, "third"))
}
