//go:build unix

package receiptlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO, a symlink or a directory at the log's path (or a generation's)
// is refused at once with an error naming it, never waited on; a log
// that cannot be opened names its path.
func TestRefusesWhatIsNoLogWithoutHanging(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	if err := os.WriteFile(real, []byte(`{"time":"2026-12-06T10:00:00Z","decision":"allow","tool":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := func(p string) {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	tests := []struct {
		name, want string
		plant      func(path string)
	}{
		{"a FIFO", "a FIFO", fifo},
		{"a FIFO as generation 1", "a FIFO", func(p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			fifo(p + ".1")
		}},
		{"a symlink", "is a symlink", func(p string) {
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", "a directory", func(p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, string(rune('a'+i)), "decisions.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			tc.plant(path)
			done := make(chan error, 1)
			go func() {
				r, err := Log{Path: path}.Open()
				if err == nil {
					r.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Dir(path)) {
					t.Errorf("Open = %v, want an error naming the path and %q", err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Open hangs")
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads every file")
		}
		path := filepath.Join(dir, "unreadable.jsonl")
		if err := os.WriteFile(path, nil, 0o000); err != nil {
			t.Fatal(err)
		}
		_, err := Log{Path: path}.Open()
		if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open = %v, want permission denied naming %s", err, path)
		}
	})
	t.Run("under a file", func(t *testing.T) {
		path := filepath.Join(real, "decisions.jsonl")
		_, err := Log{Path: path}.Open()
		if !errors.Is(err, syscall.ENOTDIR) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open = %v, want not a directory naming %s", err, path)
		}
	})
	t.Run("none yet", func(t *testing.T) {
		r, err := Log{Path: filepath.Join(dir, "none", "decisions.jsonl")}.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, more, err := r.Last(Filter{}, 5); err != nil || len(got) != 0 || more || len(r.Files()) != 0 {
			t.Errorf("a log not yet written: %v, %v, %v, files %v", got, more, err, r.Files())
		}
	})
}
