package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTransient(t *testing.T) {
	tmp, cache := t.TempDir(), t.TempDir()
	dirs := []string{tmp, cache}
	for binary, want := range map[string]string{
		filepath.Join(tmp, "codewhale-ls"):                               "temporary or build-cache directory",
		filepath.Join(cache, "0a", "codewhale-ls"):                       "temporary or build-cache directory",
		"/home/me/x/go-build998/b001/exe/codewhale-ls":                   "go run",
		"/usr/local/bin/codewhale-ls":                                    "",
		"/home/me/go/bin/codewhale-ls":                                   "",
		filepath.Join(filepath.Dir(tmp), "not-"+filepath.Base(tmp), "x"): "",
	} {
		if got := Transient(binary, dirs); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("Transient(%s) = %q, want %q", binary, got, want)
		}
	}
	// Through a symlink into a temporary directory.
	link := filepath.Join(t.TempDir(), "lasting")
	if err := os.Symlink(tmp, link); err != nil {
		t.Fatal(err)
	}
	if got := Transient(filepath.Join(link, "codewhale-ls"), []string{tmp}); got == "" {
		t.Error("a symlink into a temporary directory was not seen")
	}
}

func TestProjectCommand(t *testing.T) {
	if got, err := ProjectCommand(func(string) (string, error) { return "/usr/bin/codewhale-ls", nil }); got != "codewhale-ls" || err != nil {
		t.Errorf("on PATH: %q %v", got, err)
	}
	if _, err := ProjectCommand(func(string) (string, error) { return "", errors.New("not found") }); err == nil || !strings.Contains(err.Error(), "PATH") {
		t.Errorf("not on PATH: %v", err)
	}
}

func TestApplyPrivateWritesLikeCodewhale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".codewhale", "permissions.toml")
	c, err := Plan(path, func([]byte, bool) ([]byte, error) { return []byte("# x\n"), nil })
	if err != nil {
		t.Fatal(err)
	}
	c.Private = true
	if err := c.Apply(); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700, path + ".lock": 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, want %v (%v)", p, fi.Mode().Perm(), mode, err)
		}
	}
}

// A save made between the diff and the write (Codewhale's approval card
// appending a rule) is kept, and the change refused.
func TestApplyPrivateKeepsASaveMadeMeanwhile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.toml")
	if err := os.WriteFile(path, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Plan(path, func(old []byte, _ bool) ([]byte, error) { return append(old, "# starter\n"...), nil })
	if err != nil {
		t.Fatal(err)
	}
	c.Private = true
	saved := "# mine\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"ls\"\n"
	if err := os.WriteFile(path, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != saved {
		t.Fatalf("the save was lost:\n%s", got)
	}
}
