//go:build unix

package install

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func planInstall(t *testing.T, path string) Change {
	t.Helper()
	agent := named("claude-code")
	c, err := Plan(path, func(old []byte, exists bool) ([]byte, error) {
		return agent.Install(old, exists, "/usr/bin/codewhale-ls")
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestApplyKeepsModeAndFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("{\n  \"a\": 1\n}\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	c := planInstall(t, link)
	if c.Target != real || !strings.Contains(c.Diff(), "+  \"hooks\"") {
		t.Fatalf("target %s, diff:\n%s", c.Target, c.Diff())
	}
	if err := c.Apply(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	fi, err := os.Stat(real)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, err %v", fi.Mode().Perm(), err)
	}
	if got, _ := os.ReadFile(real); string(got) != string(c.New) {
		t.Fatalf("wrote\n%s", got)
	}
}

func TestApplyCreatesMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	c := planInstall(t, path)
	if c.Exists || c.Diff() == "" {
		t.Fatalf("exists %v, diff %q", c.Exists, c.Diff())
	}
	if err := c.Apply(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(c.New) {
		t.Fatalf("%v\n%s", err, got)
	}
}

func TestApplyRefusesFileChangedAfterThePlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := planInstall(t, path)
	saved := "{\"model\": \"saved meanwhile\"}\n"
	if err := os.WriteFile(path, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != saved {
		t.Fatalf("the save was lost:\n%s", got)
	}
}

func TestPlanRefusesFIFOWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	agent := named("claude-code")
	_, err := Plan(path, func(old []byte, exists bool) ([]byte, error) { return agent.Install(old, exists, "x") })
	if err == nil || !strings.Contains(err.Error(), "regular") {
		t.Fatalf("got %v", err)
	}
}

func TestPlanRefusesDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(filepath.Join(dir, "gone"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(link, func([]byte, bool) ([]byte, error) { return []byte("{}"), nil }); err == nil {
		t.Fatal("planned a write through a dangling symlink")
	}
}
