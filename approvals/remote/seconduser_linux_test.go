package remote

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// TestASecondUsersProcessCannotConnect: a process of another user neither
// reaches the socket (its directory is 0700) nor, where the permissions
// are opened by mistake, gets a decision: the server reads its uid from the
// kernel (SO_PEERCRED) and refuses it before reading its request.
func TestASecondUsersProcessCannotConnect(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a process as a second user (uid 65534); run as root (CI does) to check the kernel's peer credentials")
	}
	base := runtimeHere(t)
	workspace := t.TempDir()
	s := listen(t, workspace, func(context.Context, Request) gate.Decision {
		t.Error("a second user's request reached the handler")
		return gate.Decision{}
	})
	// The second user can run a copy of this binary and walk to the
	// runtime directory; the socket's own directory stays ours.
	bin := filepath.Join(base, "dialer")
	copyExecutable(t, bin)
	chmod(t, base, 0o711)
	dial := func() string {
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = []string{dialAsChild + "=" + s.Path()}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the second user's process: %v\n%s", err, out)
		}
		return string(out)
	}
	if got := dial(); !strings.Contains(got, "permission denied") {
		t.Errorf("through the 0700 directory, the second user got: %s", got)
	}
	// Opened by mistake: the kernel's credentials still refuse the peer.
	chmod(t, filepath.Dir(s.Path()), 0o711)
	chmod(t, s.Path(), 0o777)
	if got := dial(); !strings.Contains(got, `refused`) || !strings.Contains(got, fmt.Sprintf("uid %d", nobody)) {
		t.Errorf("with the socket opened to everyone, the second user got: %s", got)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// copyExecutable copies the test binary to path, mode 0755, where another
// user can run it (go test builds it in a 0700 directory).
func copyExecutable(t *testing.T, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
