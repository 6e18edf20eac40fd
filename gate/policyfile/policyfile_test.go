//go:build unix

// The FIFOs these tests plant (syscall.Mkfifo) exist only on Unix.

package policyfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(regular, []byte("allow_shell = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "constitution.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A sparse file: 6 GB long, no disk used.
	huge := filepath.Join(dir, "hooks.toml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(6 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	atLimit := filepath.Join(dir, "limit.toml")
	if err := os.WriteFile(atLimit, make([]byte, MaxBytes), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		path string
		want string // the content, or the error's text
		is   error
	}{
		{regular, "allow_shell = false\n", nil},
		{link, "allow_shell = false\n", nil},
		{fifo, "is not a regular file (a FIFO)", ErrNotRegular},
		{dir, "is not a regular file (a directory)", ErrNotRegular},
		{"/dev/null", "is not a regular file (a device)", ErrNotRegular},
		{huge, "is larger than 16777216 bytes (6442450944 bytes)", ErrTooLarge},
		{filepath.Join(dir, "missing"), "no such file", fs.ErrNotExist},
	}
	for _, c := range cases {
		data, err := Read(c.path)
		if c.is == nil {
			if err != nil || string(data) != c.want {
				t.Errorf("%s: %q, %v", c.path, data, err)
			}
			continue
		}
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) || data != nil {
			t.Errorf("%s: %q, %v; want %v naming %q", c.path, data, err, c.is, c.want)
		}
	}
	if data, err := Read(atLimit); err != nil || len(data) != MaxBytes {
		t.Errorf("a file of exactly MaxBytes: %d bytes, %v", len(data), err)
	}
}
