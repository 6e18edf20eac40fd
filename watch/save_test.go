package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The save styles of docs/codewhale/deps.md §3 (B1–B5 and the real tools listed under them).
// Each must produce a report naming exactly the target, whatever temporary
// names the editor used on the way.
func TestSaveStyles(t *testing.T) {
	styles := []struct {
		name string
		save func(t *testing.T, target string)
	}{
		{"in place write (B1, nvim backupcopy=auto)", func(t *testing.T, target string) {
			write(t, target, "b = 2\n")
		}},
		{"temp + rename-over (B2, JetBrains/VS Code)", func(t *testing.T, target string) {
			tmp := target + ".tmp"
			write(t, tmp, "b = 2\n")
			must(t, os.Rename(tmp, target))
		}},
		{"sed -i (CreateTemp then rename-over)", func(t *testing.T, target string) {
			f, err := os.CreateTemp(filepath.Dir(target), "sed")
			must(t, err)
			_, err = f.WriteString("b = 2\n")
			must(t, err)
			must(t, f.Close())
			must(t, os.Rename(f.Name(), target))
		}},
		{"rename-away + new file (B3, vim backupcopy=no)", func(t *testing.T, target string) {
			backup := target + "~"
			must(t, os.Rename(target, backup))
			write(t, target, "b = 2\n")
			must(t, os.Remove(backup))
		}},
		{"delete (B4)", func(t *testing.T, target string) {
			must(t, os.Remove(target))
		}},
		{"append in place", func(t *testing.T, target string) {
			f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteString("c = 3\n")
			must(t, err)
			must(t, f.Close())
		}},
	}
	for _, style := range styles {
		t.Run(style.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "config.toml")
			write(t, target, "a = 1\n")
			_, rec := start(t, quick, target)
			style.save(t, target)
			if got := rec.waitFor(t, target); !slices.Equal(got, []string{target}) {
				t.Fatalf("report = %v, want [%s]", got, target)
			}
		})
	}
}

// B4/B5: deleted, then re-created; then the new file keeps being watched.
func TestDeleteThenRecreate(t *testing.T) {
	target := filepath.Join(t.TempDir(), "permissions.toml")
	write(t, target, "a = 1\n")
	_, rec := start(t, quick, target)

	must(t, os.Remove(target))
	rec.waitFor(t, target)
	write(t, target, "a = 1\n")
	rec.waitFor(t, target)
	write(t, target, "a = 2\n")
	rec.waitFor(t, target)
}

// A target that does not exist at Set time is reported when it appears.
func TestCreatedLater(t *testing.T) {
	target := filepath.Join(t.TempDir(), "permissions.toml")
	_, rec := start(t, quick, target)
	write(t, target, "")
	rec.waitFor(t, target)
}

// Repeated saves after a rename-over: the watch is on the directory, so it
// survives the inode change that loses a watch on the file itself (A3).
func TestRenameOverRepeatedly(t *testing.T) {
	target := filepath.Join(t.TempDir(), "config.toml")
	write(t, target, "v0")
	_, rec := start(t, quick, target)
	for _, content := range []string{"v1", "v2", "v3"} {
		write(t, target+".tmp", content)
		must(t, os.Rename(target+".tmp", target))
		rec.waitFor(t, target)
	}
}
