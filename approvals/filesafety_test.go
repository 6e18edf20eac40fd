package approvals

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// A dotfiles setup links permissions.toml to a file elsewhere. Before, the
// grant replaced the link with a plain file: the link was gone and the
// dotfiles copy never got the rule.
func TestAppendRulesRefusesASymlinkedFile(t *testing.T) {
	dir := t.TempDir()
	dotfile := filepath.Join(dir, "dotfiles-permissions.toml")
	writeFile(t, dotfile, pathTOML)
	path := filepath.Join(dir, "permissions.toml")
	if err := os.Symlink(dotfile, path); err != nil {
		t.Fatal(err)
	}
	added, err := AppendRules(path, []execpolicy.Rule{shellGrant("cargo test")})
	if err == nil || added != 0 || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("added %d, err %v", added, err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got := readFile(t, dotfile); got != pathTOML {
		t.Errorf("the linked file changed: %q", got)
	}
}

// The lock file is ours, but a link planted there must not make us
// create or truncate the file it points to.
func TestAppendRulesRefusesASymlinkedLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.toml")
	writeFile(t, path, pathTOML)
	elsewhere := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(elsewhere, path+".lock"); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendRules(path, []execpolicy.Rule{shellGrant("cargo test")}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Lstat(elsewhere); !os.IsNotExist(err) {
		t.Errorf("the lock link's target was created: %v", err)
	}
	if got := readFile(t, path); got != pathTOML {
		t.Errorf("permissions.toml changed: %q", got)
	}
}

// An editor saves permissions.toml while a grant is being written, by
// rename or in place, without our lock. Before, its rule was lost.
func TestAppendRulesKeepsAConcurrentSave(t *testing.T) {
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
				writeFile(t, path, pathTOML)
				saved := pathTOML + "\n" + editorRule
				saves := 0
				editorSaves := func() {
					if saves++; saves == 1 {
						if err := save(path, saved); err != nil {
							t.Fatal(err)
						}
					}
				}
				w := grantWriter{install: installFile}
				if when == "before the re-read" {
					w.written = editorSaves
				} else {
					w.beforeInstall = editorSaves
				}
				added, err := w.appendRules(path, []execpolicy.Rule{shellGrant("cargo test")})
				if err != nil || added != 1 {
					t.Fatalf("added %d: %v", added, err)
				}
				got := readFile(t, path)
				if !strings.HasPrefix(got, saved) || !strings.Contains(got, `command = "cargo test"`) {
					t.Errorf("the editor's save or the grant is lost:\n%s", got)
				}
				if names := dirNames(t, filepath.Dir(path)); len(names) != 2 {
					t.Errorf("left behind: %v", names)
				}
			})
		}
	}
}

// A file that never stops changing is left as the editor last wrote it.
func TestAppendRulesGivesUpOnAFileThatKeepsChanging(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.toml")
	writeFile(t, path, pathTOML)
	n := 0
	w := grantWriter{install: installFile, written: func() {
		n++
		writeFile(t, path, pathTOML+strings.Repeat("\n", n))
	}}
	if _, err := w.appendRules(path, []execpolicy.Rule{shellGrant("cargo test")}); err == nil {
		t.Fatal("no error")
	}
	if got := readFile(t, path); got != pathTOML+strings.Repeat("\n", n) {
		t.Errorf("the file is not the editor's last save: %q", got)
	}
	if names := dirNames(t, filepath.Dir(path)); len(names) != 2 { // the file and its lock
		t.Errorf("left behind: %v", names)
	}
}

func TestDecisionLogRefusesSymlinkAndFIFO(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if l, err := OpenDecisionLog(link); err == nil {
		l.Close()
		t.Fatal("opened a symlinked log")
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the link's target was created: %v", err)
	}

	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		l, err := OpenDecisionLog(fifo)
		if err == nil {
			l.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err == nil {
			t.Fatal("opened a FIFO as the log")
		}
	case <-time.After(10 * time.Second):
		// Before, the open blocked until a reader came: be that reader so
		// the goroutine ends, and fail.
		r, _ := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		<-opened
		r.Close()
		t.Fatal("opening a FIFO as the log blocked")
	}
}

// "Always" is not offered for a symlinked permissions.toml, and the card
// says why.
func TestNoAlwaysForASymlinkedPermissionsFile(t *testing.T) {
	snap, req := asking(t)
	want, _ := NewPrompt(req, gate.Decide(context.Background(), snap, req, gate.Deps{}))
	if want == nil || !want.offers(gate.ChoiceAlways) {
		t.Fatalf("the plain setup offers no always: %+v", want)
	}
	dotfile := filepath.Join(t.TempDir(), "permissions.toml")
	writeFile(t, dotfile, "")
	if err := os.Symlink(dotfile, snap.Paths.Permissions); err != nil {
		t.Fatal(err)
	}
	snap = loadSnapshot(snap.Paths.Config, req.Workspace, snap.Paths.Home)
	p, err := NewPrompt(req, gate.Decide(context.Background(), snap, req, gate.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	if p.offers(gate.ChoiceAlways) || !strings.Contains(p.Detail, "is not offered: permissions.toml is a symlink") {
		t.Errorf("choices %+v, detail %q", p.Choices, p.Detail)
	}
}

// Nor for a permissions.toml, or a folder, that this process cannot
// write: the save would fail after the user chose it.
func TestNoAlwaysForAnUnwritablePermissionsFile(t *testing.T) {
	for _, which := range []string{"file", "folder"} {
		t.Run(which, func(t *testing.T) {
			snap, req := asking(t)
			target := snap.Paths.Permissions
			if which == "folder" {
				target = filepath.Dir(target)
			} else {
				writeFile(t, target, "")
			}
			makeUnwritable(t, target)
			snap = loadSnapshot(snap.Paths.Config, req.Workspace, snap.Paths.Home)
			p, err := NewPrompt(req, gate.Decide(context.Background(), snap, req, gate.Deps{}))
			if err != nil {
				t.Fatal(err)
			}
			if p.offers(gate.ChoiceAlways) || !strings.Contains(p.Detail, "not writable") {
				t.Errorf("choices %+v, detail %q", p.Choices, p.Detail)
			}
		})
	}
}

// makeUnwritable makes path unwritable for this process: by its mode, or,
// for root (whom modes do not stop), by the immutable attribute.
func makeUnwritable(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(path, 0o755) })
	if syscall.Access(path, 0x2) != nil {
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("running as root and chattr +i fails here (%v: %s): no way to make %s unwritable", err, out, path)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
}

// permissions.toml became a link after the card offered "always": the
// grant writes nothing, the link stays, and the call the user approved
// runs once, saying the rule was not saved.
func TestAlwaysRefusedWhenTheFileBecameALink(t *testing.T) {
	snap, req := asking(t)
	dotfile := filepath.Join(t.TempDir(), "permissions.toml")
	writeFile(t, dotfile, pathTOML)
	if err := os.Symlink(dotfile, snap.Paths.Permissions); err != nil {
		t.Fatal(err)
	}
	a, _ := deciding(t, &scripted{reply: gate.ChoiceAlways}, Config{}, snap)
	d := a.Authorize(context.Background(), req, "")
	if d.Decision != gate.Allow || !strings.Contains(d.Reason, "NOT saved") || !strings.Contains(d.Reason, "symlink") {
		t.Fatalf("%s: %s", d.Decision, d.Reason)
	}
	if fi, err := os.Lstat(snap.Paths.Permissions); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got := readFile(t, dotfile); got != pathTOML {
		t.Errorf("the linked file changed: %q", got)
	}
}
