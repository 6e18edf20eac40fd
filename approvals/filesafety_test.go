//go:build unix

// The FIFOs these tests plant (syscall.Mkfifo) exist only on Unix.

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

	"github.com/codewhale-ls/codewhale-ls/internal/filetest"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

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
	filetest.Write(t, dotfile, "")
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
				filetest.Write(t, target, "")
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
	filetest.Write(t, dotfile, pathTOML)
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
	if got := filetest.Read(t, dotfile); got != pathTOML {
		t.Errorf("the linked file changed: %q", got)
	}
}

// A FIFO or symlink put where a rotated log was, or as the lock, is
// refused at once, never written through or waited on; the decision it
// would record is denied, saying why (TestDecisionLogRefusesSymlinkAndFIFO
// covers opening one).
func TestDecisionLogRefusesFIFOAndSymlink(t *testing.T) {
	plant := map[string]func(t *testing.T, path string){
		"FIFO": func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		},
		"symlink": func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			filetest.Write(t, target, "")
			if err := os.Symlink(target, path); err != nil {
				t.Skip("no symlinks here:", err)
			}
		},
	}
	for kind, planted := range plant {
		t.Run(kind+" after rotation", func(t *testing.T) {
			l, path := openTestLog(t)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			planted(t, path)
			r := &Recorder{log: l}
			d := r.Final(gate.Request{Tool: "bash"}, Caller{}, gate.Decision{Decision: gate.Allow})
			if d.Decision != gate.Deny || !strings.Contains(d.Reason, path) {
				t.Errorf("a %s at the log's path: %s %q", kind, d.Decision, d.Reason)
			}
		})
		t.Run(kind+" as the lock", func(t *testing.T) {
			l, path := openTestLog(t)
			planted(t, path+".lock")
			if err := l.Append(loadEntry("w", 0)); err == nil || !strings.Contains(err.Error(), "cannot lock the decision log") {
				t.Errorf("appended under a %s lock: %v", kind, err)
			}
		})
	}
}
