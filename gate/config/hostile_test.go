package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO or a sparse 6 GB file at any policy path is loaded at once, as a
// file Codewhale cannot read, with a reason saying what it is. (The
// overlay and the constitution look at what the path is first: Codewhale
// treats a non-regular overlay as absent, and words the constitution's
// refusals itself.)
func TestHostilePolicyFiles(t *testing.T) {
	for _, hostile := range []struct {
		name, says string
		at         func(t *testing.T, path string)
	}{
		{"fifo", "a FIFO", func(t *testing.T, path string) {
			mkdir(t, filepath.Dir(path))
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"sparse 6 GB", "larger than", func(t *testing.T, path string) {
			mkdir(t, filepath.Dir(path))
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(6 << 30); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		for _, kind := range []Kind{KindUserConfig, KindPermissions, KindOverlay, KindProjectHooks, KindConstitution} {
			t.Run(hostile.name+" "+string(kind), func(t *testing.T) {
				w := newWorld(t)
				w.userConfig("allow_shell = false\n")
				if kind == KindProjectHooks {
					w.userConfig(trustedWorkspace(w.ws))
				}
				paths, err := ResolvePaths(Options{Workspace: w.ws, Env: w.vars})
				if err != nil {
					t.Fatal(err)
				}
				path := map[Kind]string{
					KindUserConfig: paths.Config, KindPermissions: paths.Permissions, KindOverlay: paths.Overlay,
					KindProjectHooks: paths.ProjectHooks, KindConstitution: filepath.Join(w.ws, ".codewhale", "constitution.json"),
				}[kind]
				if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				hostile.at(t, path)
				f := w.load().File(kind)
				says := hostile.says
				switch {
				case kind == KindOverlay && hostile.name == "fifo":
					if f != nil {
						t.Errorf("a FIFO overlay should be absent, got %+v", f)
					}
					return
				case kind == KindConstitution && hostile.name == "fifo":
					says = "not a regular file"
				case kind == KindConstitution:
					says = "over the 100 KiB limit"
				}
				if f == nil {
					t.Fatalf("no %s in the snapshot", kind)
				}
				said := false
				for _, p := range f.Problems {
					said = said || strings.Contains(p.Message, says)
				}
				if f.State == Loaded || !said {
					t.Errorf("%s: state %s, problems %v; want not loaded, saying %q", path, f.State, f.Problems, says)
				}
			})
		}
	}
}

func trustedWorkspace(ws string) string {
	return "[projects." + tomlString(ws) + "]\ntrust_level = \"trusted\"\n"
}
