//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
)

// Each hook call is a new process: the second one finds what the first
// detected in the user's cache directory and does not run `codewhale
// --version` again (README, "Which Codewhale").
func TestDetectionRememberedAcrossProcesses(t *testing.T) {
	dir := fakecodewhale.Dir(t, "echo x >> \"$0.count\"; echo 'codewhale 0.10.0'\n")
	ws := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	for i := range 2 {
		cmd, _ := serverCommand(t, "explain", "--workspace", ws, "read_file", "--path", "a.txt")
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cache, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, out)
		}
		if !strings.Contains(string(out), "as Codewhale 0.10.0 behaviour (Codewhale 0.10.0, detected at "+filepath.Join(dir, "codewhale")) {
			t.Fatalf("process %d printed:\n%s", i, out)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "codewhale.count"))
	if n := strings.Count(string(b), "x"); n != 1 {
		t.Errorf("codewhale --version ran %d times over two processes, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(cache, "codewhale-ls", "codewhale-versions.json")); err != nil {
		t.Errorf("no cache file: %v", err)
	}
}
