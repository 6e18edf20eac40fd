package writetarget

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// workspace builds the §4.4 fixture: a git workspace with src/main.rs,
// src-link -> <ws>/src, link -> a directory outside the workspace.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	outside := t.TempDir()
	for _, dir := range []string{".git", "src"} {
		if err := os.Mkdir(filepath.Join(ws, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "main.rs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"src-link": filepath.Join(ws, "src"), "link": outside, "git-link": filepath.Join(ws, ".git")}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// docs/codewhale/pipeline.md §4.4 "Carve-out path vectors", then our own edges.
func TestQualifies(t *testing.T) {
	ws := workspace(t)
	tests := []struct {
		paths []string
		want  bool
	}{
		// §4.4: qualify.
		{[]string{"src/main.rs"}, true},
		{[]string{"src/new_file.rs"}, true},
		{[]string{"deeply/nested/not-yet-created.rs"}, true},
		{[]string{"./src/main.rs"}, true},
		{[]string{filepath.Join(ws, "src/main.rs")}, true},
		{[]string{"src/main.rs", "src/other.rs"}, true},
		{[]string{"src-link/main.rs"}, true},
		// §4.4: do not qualify.
		{[]string{"../outside.rs"}, false},
		{[]string{"src/../../outside.rs"}, false},
		{[]string{"/etc/passwd"}, false},
		{[]string{".git/config"}, false},
		{[]string{"nested/.git/hooks/pre-commit"}, false},
		{[]string{".env"}, false},
		{[]string{"config/.env.production"}, false},
		{[]string{".ssh/config"}, false},
		{[]string{"deploy/id_rsa"}, false},
		{[]string{"certs/server.pem"}, false},
		{[]string{".codewhale/mcp.json"}, false},
		{[]string{"aws/credentials"}, false},
		{[]string{"src/main.rs", ".env"}, false},
		{[]string{"link/evil.rs"}, false},
		{nil, false},
		{[]string{}, false},

		// Our edges.
		{[]string{""}, false},
		{[]string{"src/main.rs", ""}, false},
		{[]string{"."}, false},
		{[]string{ws}, false},
		{[]string{"src/../src/x.rs"}, true},
		{[]string{"src-link/../x.rs"}, true}, // src-link/.. is ws
		{[]string{"link/../x.rs"}, false},    // the OS resolves link/.. outside
		{[]string{"git-link/config"}, false}, // the real path is under .git
		{[]string{"link"}, false},            // writing the link writes outside
		{[]string{"SRC/.ENV.local"}, false},
		{[]string{".GIT/HEAD"}, false},
		{[]string{".envrc"}, false},
		{[]string{"credentials.json"}, false},
		{[]string{"Credentials"}, false},
		{[]string{"id_ed25519.pub"}, false},
		{[]string{"keys/signing.KEY"}, false},
		{[]string{"a.p12"}, false},
		{[]string{"a.pfx"}, false},
		{[]string{"a.jks"}, false},
		{[]string{"app.keystore"}, false},
		{[]string{"store.jks/inner.txt"}, false},
		{[]string{".pem"}, true}, // no extension: the name starts with the dot
		{[]string{"keyboard.rs"}, true},
		{[]string{"docs/credential.md"}, true},
		{[]string{".github/workflows/ci.yml"}, true},
		{[]string{".gitignore"}, true},
		{[]string{"src/main.rs/child"}, false}, // a file is not a directory
		{[]string{"bad\x00name"}, false},
	}
	for _, tt := range tests {
		if got := Qualifies(ws, tt.paths); got != tt.want {
			t.Errorf("Qualifies(ws, %q) = %v, want %v", tt.paths, got, tt.want)
		}
	}
}

// §4.4: any path when the workspace has no .git; a .git file (worktree,
// submodule) counts like a directory.
func TestQualifiesNeedsGit(t *testing.T) {
	bare := t.TempDir()
	if Qualifies(bare, []string{"src/main.rs"}) {
		t.Error("workspace without .git qualified")
	}
	worktree := t.TempDir()
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !Qualifies(worktree, []string{"src/main.rs"}) {
		t.Error("workspace with a .git file did not qualify")
	}
	if Qualifies("relative/ws", []string{"src/main.rs"}) {
		t.Error("relative workspace qualified")
	}
}

// A symlinked workspace is compared by its real path on both sides.
func TestQualifiesSymlinkedWorkspace(t *testing.T) {
	real := workspace(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	if !Qualifies(alias, []string{"src/main.rs", filepath.Join(alias, "src/x.rs")}) {
		t.Error("paths in a symlinked workspace did not qualify")
	}
	if Qualifies(alias, []string{filepath.Join(real, "src/x.rs")}) {
		t.Error("a path spelled through the real workspace is lexically outside the alias")
	}
}

// A dangling symlink and a disk error both deny.
func TestQualifiesDiskErrors(t *testing.T) {
	ws := workspace(t)
	if err := os.Symlink(filepath.Join(ws, "missing"), filepath.Join(ws, "dangling")); err != nil {
		t.Fatal(err)
	}
	if Qualifies(ws, []string{"dangling"}) {
		t.Error("dangling symlink qualified")
	}
	failing := Checker{Disk: failingDisk{OS{}}}
	if failing.Qualifies(ws, []string{"src/main.rs"}) {
		t.Error("qualified although EvalSymlinks failed")
	}
	if !(Checker{Disk: OS{}}).Qualifies(ws, []string{"src/main.rs"}) {
		t.Error("control: real disk should qualify")
	}
}

type failingDisk struct{ OS }

func (failingDisk) EvalSymlinks(string) (string, error) { return "", errors.New("boom") }

var _ Disk = failingDisk{}

func FuzzQualifies(f *testing.F) {
	ws := f.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"src/main.rs", "../x", "/etc/passwd", ".env", "a/./b/../c", "//", "", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if Qualifies(ws, []string{p}) {
			rel, err := filepath.Rel(ws, filepath.Join(ws, p))
			if filepath.IsAbs(p) {
				rel, err = filepath.Rel(ws, filepath.Clean(p))
			}
			if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
				t.Errorf("Qualifies(%q) escaped the workspace", p)
			}
		}
	})
}
