package policyfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/filetest"
)

const original = "# by hand\n[[rules]]\ntool = \"write_file\"\n"

// appending is an edit that adds line to whatever the file holds.
func appending(line string) func(old []byte, exists bool) ([]byte, error) {
	return func(old []byte, _ bool) ([]byte, error) {
		return append(slices.Clone(old), line...), nil
	}
}

// A dotfiles setup links permissions.toml to a file elsewhere. Before, the
// grant replaced the link with a plain file: the link was gone and the
// dotfiles copy never got the rule.
func TestRewriteRefusesASymlinkedFile(t *testing.T) {
	dir := t.TempDir()
	dotfile := filepath.Join(dir, "dotfiles-permissions.toml")
	filetest.Write(t, dotfile, original)
	path := filepath.Join(dir, "permissions.toml")
	if err := os.Symlink(dotfile, path); err != nil {
		t.Fatal(err)
	}
	changed, err := Rewrite(path, 0o600, appending("# grant\n"))
	if err == nil || changed || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got := filetest.Read(t, dotfile); got != original {
		t.Errorf("the linked file changed: %q", got)
	}
}

// The lock file is ours, but a link planted there must not make us
// create or truncate the file it points to.
func TestLockExclusiveRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "permissions.toml.lock")
	elsewhere := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(elsewhere, lock); err != nil {
		t.Fatal(err)
	}
	if unlock, err := LockExclusive(lock); err == nil || !strings.Contains(err.Error(), "symlink") {
		if err == nil {
			unlock()
		}
		t.Fatalf("err %v", err)
	}
	if _, err := os.Lstat(elsewhere); !os.IsNotExist(err) {
		t.Errorf("the lock link's target was created: %v", err)
	}
}

// An editor saves the file while it is being rewritten, by rename or in
// place, without our lock. Before, its save was lost.
func TestRewriteKeepsAConcurrentSave(t *testing.T) {
	const editorRule = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"make\"\naction = \"deny\"\n"
	for name, save := range map[string]func(path, text string) error{
		"rename over": func(path, text string) error {
			tmp := path + ".editor~"
			if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, path)
		},
		"in place": func(path, text string) error { return os.WriteFile(path, []byte(text), 0o600) },
	} {
		// The save lands before the re-read, or after it, just before
		// the new file goes in (the exchange must give it back).
		for _, when := range []string{"before the re-read", "before the install"} {
			t.Run(name+", "+when, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "permissions.toml")
				filetest.Write(t, path, original)
				saved := original + "\n" + editorRule
				saves := 0
				editorSaves := func() {
					if saves++; saves == 1 {
						if err := save(path, saved); err != nil {
							t.Fatal(err)
						}
					}
				}
				h := hooks{install: installFile}
				if when == "before the re-read" {
					h.written = editorSaves
				} else {
					h.beforeInstall = editorSaves
				}
				changed, err := Rewriter{Mode: 0o600}.rewrite(path, appending("# grant\n"), h)
				if err != nil || !changed {
					t.Fatalf("changed %v: %v", changed, err)
				}
				if got := filetest.Read(t, path); got != saved+"# grant\n" {
					t.Errorf("the editor's save or the edit is lost:\n%s", got)
				}
				if names := filetest.Names(t, filepath.Dir(path)); len(names) != 1 {
					t.Errorf("left behind: %v", names)
				}
			})
		}
	}
}

// A file that never stops changing is left as the editor last wrote it.
func TestRewriteGivesUpOnAFileThatKeepsChanging(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.toml")
	filetest.Write(t, path, original)
	n := 0
	h := hooks{install: installFile, written: func() {
		n++
		filetest.Write(t, path, original+strings.Repeat("\n", n))
	}}
	if _, err := (Rewriter{Mode: 0o600}).rewrite(path, appending("# grant\n"), h); err == nil {
		t.Fatal("no error")
	}
	if got := filetest.Read(t, path); got != original+strings.Repeat("\n", n) {
		t.Errorf("the file is not the editor's last save: %q", got)
	}
	if names := filetest.Names(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}
}

// A write that fails at the last step leaves the file as it was and no
// temporary file behind.
func TestRewriteInstallFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.toml")
	filetest.Write(t, path, "# keep\n")
	failing := hooks{install: func(string, string, bool) (bool, error) { return false, errors.New("disk on fire") }}
	changed, err := Rewriter{Mode: 0o600}.rewrite(path, appending("# grant\n"), failing)
	if err == nil || changed || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), path) {
		t.Fatalf("rewrite = %v, %v; want the install's error naming %s", changed, err, path)
	}
	if got := filetest.Read(t, path); got != "# keep\n" {
		t.Errorf("content changed: %q", got)
	}
	if names := filetest.Names(t, dir); !slices.Equal(names, []string{"permissions.toml"}) {
		t.Errorf("directory holds %v", names)
	}
}

// The lock serialises writers even within one process: every edit lands
// and the original text stays the prefix.
func TestLockExclusiveSerialisesRewrites(t *testing.T) {
	const n = 100
	path := filepath.Join(t.TempDir(), "permissions.toml")
	filetest.Write(t, path, original)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			unlock, err := LockExclusive(path + ".lock")
			if err != nil {
				errs <- err
				return
			}
			defer unlock()
			if changed, err := Rewrite(path, 0o600, appending(fmt.Sprintf("# edit %d\n", i))); err != nil || !changed {
				errs <- fmt.Errorf("edit %d: changed %v, %v", i, changed, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := filetest.Read(t, path)
	if !strings.HasPrefix(got, original) {
		t.Fatalf("the original text is not the prefix:\n%s", got)
	}
	for i := range n {
		if !strings.Contains(got, fmt.Sprintf("# edit %d\n", i)) {
			t.Errorf("edit %d is missing", i)
		}
	}
}
