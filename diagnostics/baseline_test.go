package diagnostics

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// requireGit skips without git, unless CODEWHALE_E2E=1 demands every test.
func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CODEWHALE_E2E") == "1" {
			t.Fatalf("git is required with CODEWHALE_E2E=1: %v", err)
		}
		t.Skip("git not found on PATH: the git HEAD baseline is not tested (set CODEWHALE_E2E=1 to make this a failure)")
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeTestFile(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestBaselines(t *testing.T) {
	requireGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	tracked := filepath.Join(repo, ".codewhale", "config.toml")
	untracked := filepath.Join(repo, ".codewhale", "hooks.toml")
	writeTestFile(t, tracked, "approval_policy = \"never\"\n")
	git(t, repo, "add", ".codewhale/config.toml")
	git(t, repo, "commit", "-q", "-m", "policy")
	writeTestFile(t, tracked, "approval_policy = \"auto\"\n") // edited, not committed
	writeTestFile(t, untracked, "# new\n")
	outside := filepath.Join(t.TempDir(), "permissions.toml")
	writeTestFile(t, outside, "rules = []\n")
	missing := filepath.Join(repo, "nothing.toml")

	b := NewBaselines()
	for _, p := range []string{tracked, untracked, outside, missing} {
		b.Open(p)
	}
	for _, tt := range []struct {
		name, path, want string
		ok               bool
	}{
		{"tracked file: git HEAD", tracked, "approval_policy = \"never\"\n", true},
		{"untracked file: disk at open", untracked, "# new\n", true},
		{"outside any repository: disk at open", outside, "rules = []\n", true},
		{"missing file: none", missing, "", false},
	} {
		got, ok := b.Get(tt.path)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("%s: Get = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	writeTestFile(t, untracked, "# changed later\n")
	if got, _ := b.Get(untracked); string(got) != "# new\n" {
		t.Errorf("the baseline followed the disk: %q", got)
	}
	b.Forget(tracked)
	if _, ok := b.Get(tracked); ok {
		t.Error("Forget kept the baseline")
	}
}

func TestBaselinesConcurrent(t *testing.T) {
	dir := t.TempDir()
	b := NewBaselines()
	var wg sync.WaitGroup
	for i := range 8 {
		p := filepath.Join(dir, string(rune('a'+i))+".toml")
		writeTestFile(t, p, "x = 1\n")
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.Open(p)
			b.Get(p)
			b.Forget(p)
			b.Open(p)
		}()
	}
	wg.Wait()
	for i := range 8 {
		if _, ok := b.Get(filepath.Join(dir, string(rune('a'+i))+".toml")); !ok {
			t.Errorf("baseline %d lost", i)
		}
	}
}

// Open does not wait for git: before, it ran git on the caller's
// goroutine, the language server's read loop, for up to gitTimeout per
// opened file. Get waits for the lookup instead.
func TestBaselineOpenDoesNotWaitForGit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	writeTestFile(t, path, "on disk\n")
	release := make(chan struct{})
	b := newBaselines(func(ctx context.Context, _ string) ([]byte, bool) {
		select {
		case <-release:
			return []byte("at HEAD\n"), true
		case <-time.After(10 * time.Second):
			return []byte("Open waited for git\n"), true
		}
	})
	defer b.Close()
	b.Open(path)
	close(release)
	if got, ok := b.Get(path); !ok || string(got) != "at HEAD\n" {
		t.Errorf("Get = %q, %v", got, ok)
	}
}

// Close stops a lookup still running; a Get waiting on it then gets the
// disk contents, and nothing is recorded after Close.
func TestBaselineCloseEndsLookups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	writeTestFile(t, path, "on disk\n")
	started := make(chan struct{})
	b := newBaselines(func(ctx context.Context, _ string) ([]byte, bool) {
		close(started)
		<-ctx.Done()
		return nil, false
	})
	b.Open(path)
	<-started
	got := make(chan string, 1)
	go func() {
		src, _ := b.Get(path)
		got <- string(src)
	}()
	b.Close()
	if src := <-got; src != "on disk\n" {
		t.Errorf("Get after Close = %q", src)
	}
	b.Forget(path)
	b.Open(path)
	if _, ok := b.Get(path); ok {
		t.Error("a baseline was recorded after Close")
	}
}

// TestCheckBaseline (issue 24, point 3): check compares with a git
// revision the way the editor compares with HEAD: a commit that deletes a
// constitution invariant is CW500 against the base revision, nothing
// against HEAD (the work tree is HEAD), nothing with --baseline none; a
// revision the repository lacks (a shallow clone) is an error naming it.
func TestCheckBaseline(t *testing.T) {
	requireGit(t)
	w := newLintWorld(t, "")
	git(t, w.ws, "init", "-q", "-b", "main")
	w.write(w.constitution, `{"protected_invariants": [{"text": "keep secrets", "paths": ["secrets/**"], "action": "block"}, {"text": "ci", "paths": [".github/**"], "action": "block"}]}`)
	git(t, w.ws, "add", ".")
	git(t, w.ws, "commit", "-q", "-m", "base")
	git(t, w.ws, "tag", "base")
	w.write(w.constitution, `{"protected_invariants": [{"text": "ci", "paths": [".github/**"], "action": "block"}]}`)
	git(t, w.ws, "commit", "-q", "-am", "loosen")

	loosened := func(rev string) []problem.Problem {
		t.Helper()
		baseline, err := CheckBaseline(context.Background(), w.ws, rev)
		if err != nil {
			t.Fatalf("--baseline %q: %v", rev, err)
		}
		return problemsWithCode(Check(Input{Options: w.options(nil), Baseline: baseline}), w.constitution, "CW500")
	}
	if got := loosened("base"); len(got) != 1 || !strings.Contains(got[0].Message, `the invariant "keep secrets" was removed`) {
		t.Errorf("against base: %v, want the removed invariant", got)
	}
	for _, rev := range []string{"", "HEAD", NoBaseline} {
		if got := loosened(rev); len(got) != 0 {
			t.Errorf("--baseline %q: %v, want nothing", rev, got)
		}
	}
	for _, rev := range []string{"origin/main", "-p"} {
		if _, err := CheckBaseline(context.Background(), w.ws, rev); err == nil || !strings.Contains(err.Error(), rev) {
			t.Errorf("--baseline %q: error %v, want one naming it", rev, err)
		}
	}
	outside := t.TempDir()
	if _, err := CheckBaseline(context.Background(), outside, "base"); err == nil || !strings.Contains(err.Error(), "no git repository") {
		t.Errorf("--baseline base outside git: error %v", err)
	}
	if b, err := CheckBaseline(context.Background(), outside, ""); b != nil || err != nil {
		t.Errorf("the default baseline outside git: %v, %v; want none, as in the editor", b != nil, err)
	}
}

// TestCheckBaselineProjectHooksNotRunHere (issue 24, point 3): a CI runner
// does not trust the workspace, so it loads the project hooks.toml in
// neither version; a gate removed from the file still loosens the policy
// of everyone who does, and is CW500.
func TestCheckBaselineProjectHooksNotRunHere(t *testing.T) {
	requireGit(t)
	for _, version := range []string{"0.9.10", "0.10.1"} {
		w := newLintWorld(t, "")
		hooksFile := filepath.Join(w.ws, ".codewhale", "hooks.toml")
		git(t, w.ws, "init", "-q", "-b", "main")
		w.write(hooksFile, "[[hooks]]\nname = \"policy-gate\"\nevent = \"tool_call_before\"\ncommand = \"./gate.sh\"\n")
		git(t, w.ws, "add", ".")
		git(t, w.ws, "commit", "-q", "-m", "base")
		w.write(hooksFile, "")
		git(t, w.ws, "commit", "-q", "-am", "drop the gate")

		baseline, err := CheckBaseline(context.Background(), w.ws, "HEAD~1")
		if err != nil {
			t.Fatal(err)
		}
		choice, _, err := release.Named(&version, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := problemsWithCode(Check(Input{Options: w.options(nil), Baseline: baseline, Codewhale: choice}), hooksFile, "CW500")
		if len(got) != 1 || !strings.Contains(got[0].Message, `the tool_call_before hook "policy-gate" was removed`) {
			t.Errorf("Codewhale %s, untrusted workspace: %v, want the removed gate", version, got)
		}
	}
}

// TestCheckBaselineDeletedFiles (issue 24, point 3): deleting the
// repository's constitution.json, hooks.toml or project overlay deletes
// every restriction it held; CW500 says so on the deleted file's path,
// though the work tree has no file left to put it on.
func TestCheckBaselineDeletedFiles(t *testing.T) {
	requireGit(t)
	w := newLintWorld(t, "")
	hooksFile := filepath.Join(w.ws, ".codewhale", "hooks.toml")
	git(t, w.ws, "init", "-q", "-b", "main")
	w.write(w.constitution, `{"protected_invariants": [{"text": "keep secrets", "paths": ["secrets/**"], "action": "block"}]}`)
	w.write(hooksFile, "[[hooks]]\nname = \"policy-gate\"\nevent = \"tool_call_before\"\ncommand = \"./gate.sh\"\n")
	w.write(w.overlay, "sandbox_mode = \"read-only\"\n")
	git(t, w.ws, "add", ".")
	git(t, w.ws, "commit", "-q", "-m", "base")
	git(t, w.ws, "rm", "-q", "-r", ".codewhale")
	git(t, w.ws, "commit", "-q", "-m", "drop the policy")

	baseline, err := CheckBaseline(context.Background(), w.ws, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	res := Check(Input{Options: w.options(nil), Baseline: baseline})
	for path, want := range map[string]string{
		w.constitution: `the invariant "keep secrets" was removed`,
		hooksFile:      `the tool_call_before hook "policy-gate" was removed`,
		w.overlay:      `sandbox_mode was "read-only", now unset`,
	} {
		if got := problemsWithCode(res, path, "CW500"); len(got) != 1 || !strings.Contains(got[0].Message, want) {
			t.Errorf("%s deleted: %v, want %q", path, got, want)
		}
	}
	head, err := CheckBaseline(context.Background(), w.ws, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Check(Input{Options: w.options(nil), Baseline: head}).Files {
		if got := problemsWithCode(&Result{Files: []*FileResult{f}}, f.Path, "CW500"); len(got) > 0 {
			t.Errorf("against HEAD, which has none of them: %v", got)
		}
	}
}
